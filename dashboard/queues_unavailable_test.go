package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// shardDown is a temporary store error, as redisstore's for a refused
// connection.
type shardDown struct{}

func (shardDown) Error() string        { return "dial tcp 127.0.0.1:7203: connect: connection refused" }
func (shardDown) StoreTemporary() bool { return true }

// downStore is a memstore whose queue "broken" cannot be read, as if its
// shard were down.
type downStore struct{ *memstore.Store }

func (s downStore) GetQueueStats(ctx context.Context, queue string) (store.QueueStats, error) {
	if queue == "broken" {
		return store.QueueStats{}, shardDown{}
	}
	return s.Store.GetQueueStats(ctx, queue)
}

// TestOverviewWithAQueueUnavailable: the overview and the live stats
// show the queues that can be read when one cannot for now (its shard
// down), marking that one; they answered 500 for every queue.
func TestOverviewWithAQueueUnavailable(t *testing.T) {
	ctx := t.Context()
	s := downStore{memstore.New(nil)}
	c := hopper.NewClient(s, nil)
	for _, q := range []string{"broken", "fine"} {
		if _, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: q}, &hopper.EnqueueOpts{Queue: q}); err != nil {
			t.Fatal(err)
		}
	}
	h := newHandler(s, nil)
	page := get(t, h, "/")
	wantStatus(t, page, http.StatusOK, "the overview with a queue unavailable")
	wantContains(t, page.Body, "overview", `data-unavailable="broken"`, `id="queues-unavailable"`, `data-count="fine/ready"`)
	r := get(t, h, "/api/stats")
	wantStatus(t, r, http.StatusOK, "the live stats with a queue unavailable")
	var st struct {
		Queues      []struct{ Name string } `json:"queues"`
		Unavailable []string                `json:"unavailable"`
		Totals      struct {
			Counts map[string]int64 `json:"counts"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(r.Body), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Queues) != 1 || st.Queues[0].Name != "fine" || len(st.Unavailable) != 1 || st.Unavailable[0] != "broken" || st.Totals.Counts["ready"] != 1 {
		t.Errorf("live stats: %+v; want fine listed, broken unavailable, 1 ready in the totals", st)
	}
}
