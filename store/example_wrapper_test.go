package store_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// metered counts the jobs enqueued through it. It embeds store.Store,
// overrides Enqueue, and declares Unwrap so that hopper still finds the
// wrapped store's optional capabilities (Admin here; Workflows, JobWaiter
// and the others alike).
type metered struct {
	store.Store
	enqueued atomic.Int64
}

func (m *metered) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	m.enqueued.Add(int64(len(jobs)))
	return m.Store.Enqueue(ctx, jobs)
}

func (m *metered) Unwrap() store.Store { return m.Store }

type Ping struct{}

func (Ping) Kind() string { return "ping" }

// A store wrapper that sees every enqueue and keeps the Inspector, Wait
// and workflows of the store it wraps.
func Example_wrapper() {
	ctx := context.Background()
	st := &metered{Store: memstore.New(nil)}
	client := hopper.NewClient(st, nil)
	if _, err := hopper.Enqueue(ctx, client, Ping{}, nil); err != nil {
		fmt.Println(err)
	}
	_, isAdmin := st.Store.(store.Admin)
	_, found := store.As[store.Admin](st)
	stats, err := hopper.NewInspector(st).GetQueueStats(ctx, "default")
	fmt.Println("wrapper saw", st.enqueued.Load(), "enqueued")
	fmt.Println("inner is Admin:", isAdmin, "found through the wrapper:", found)
	fmt.Println("ready:", stats.Counts.Ready, err)
	// Output:
	// wrapper saw 1 enqueued
	// inner is Admin: true found through the wrapper: true
	// ready: 1 <nil>
}
