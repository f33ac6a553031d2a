package dashboard_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// BenchmarkDeadManyQueues times the Dead page over 300 queues on Redis,
// each with one dead job: the page reads every queue once, 8 at a time.
//
//	go test -run '^$' -bench DeadManyQueues ./dashboard/
func BenchmarkDeadManyQueues(b *testing.B) {
	rdb := redistest.Start(b).Client(b)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(b)})
	for i := range 300 {
		failIn(b, s, fmt.Sprintf("q%03d", i), hopper.OutcomeGarbage)
	}
	h := newHandler(s, nil)
	b.ResetTimer()
	for b.Loop() {
		if r := serve(h, newRequest(http.MethodGet, "/dead", nil)); r.Code != http.StatusOK {
			b.Fatalf("GET /dead: %d", r.Code)
		}
	}
}
