package redisstore_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestDataLostWhileRunning: Redis loses its data (FLUSHALL stands for a
// restart without persistence) under two running stores. The first call
// of one after it puts the layout key back, and both register their
// queues again at once, without waiting for their next enqueue into
// them; a store started after that reads the current layout. Before, the
// key stayed gone (later processes took the data for layout 0, "written
// before v0.1.0") and the queues were missing from ListQueues, and so
// from a standalone Scheduler, for up to a minute (an outside trial).
func TestDataLostWhileRunning(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	prefix := redistest.Prefix(t)
	var logs logBuffer
	a := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
	b := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	mustEnqueue(t, a, job("qa1", "1"), job("qa2", "2"))
	mustEnqueue(t, b, job("qb", "3"))
	ctx := t.Context()
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}

	// a's next call reads the shared keys (as it does every 10 s).
	redisstore.ExpirePartsRead(a)
	mustEnqueue(t, a, job("qa1", "4"))
	if got := storedLayout(t, a, rdb); got != current {
		t.Fatalf("after the data loss and a call of a store that ran before it: layout %s, want %s", got, current)
	}
	if !strings.Contains(logs.String(), "Redis lost its data") {
		t.Errorf("no line says Redis lost its data; log:\n%s", logs.String())
	}
	// b learns of it at its next read of them.
	redisstore.ExpirePartsRead(b)
	if _, err := b.Claim(ctx, store.ClaimOpts{Queue: "qb", Max: 1, Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	qs, err := a.ListQueues(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"qa1", "qa2", "qb"} {
		if !slices.Contains(qs, q) {
			t.Errorf("after the data loss, ListQueues gives %v: %s is missing; log:\n%s", qs, q, logs.String())
		}
	}

	var later logBuffer
	c := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Logger: later.logger()})
	st, err := c.Layout(ctx)
	if err != nil || st.Stored != redisstore.LayoutVersion || len(st.Pending) != 0 {
		t.Fatalf("Layout read by a store started after the loss: %+v, %v; want layout %d, nothing pending", st, err, redisstore.LayoutVersion)
	}
	mustEnqueue(t, c, job("qc", "5"))
	if strings.Contains(later.String(), "migrate") {
		t.Errorf("a store started after the loss asks for a migration:\n%s", later.String())
	}
}
