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
// restart without persistence) under running stores. Before, the layout
// key stayed gone (later processes took the data for layout 0, "written
// before v0.1.0") and the queues were missing from ListQueues, and so
// from a standalone Scheduler, for up to a minute (an outside trial).
func TestDataLostWhileRunning(t *testing.T) {
	// The first call of a running store after the loss puts the layout
	// back and says so; every running store registers its queues again
	// at its next read of the shared keys, without an enqueue into them,
	// and declares its partitioned queues again; a store started after
	// reads the current layout and asks for no migration.
	t.Run("RunningStoreFirst", func(t *testing.T) {
		srv := redistest.Start(t, redistest.Private())
		rdb := srv.Client(t)
		prefix := redistest.Prefix(t)
		var logs logBuffer
		a := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger(), Partitions: map[string]int{"pq": 3}})
		b := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
		mustEnqueue(t, a, job("qa1", "1"), job("qa2", "2"), job("pq", "p"))
		mustEnqueue(t, b, job("qb", "3"))
		ctx := t.Context()
		before, err := a.ListQueues(ctx)
		if err != nil || len(before) != 4 {
			t.Fatalf("ListQueues before the loss: %v, %v; want qa1, qa2, qb and one partition of pq", before, err)
		}
		if err := rdb.FlushAll(ctx).Err(); err != nil {
			t.Fatal(err)
		}

		redisstore.ExpirePartsRead(a) // its next call reads the shared keys, as every 10 s
		mustEnqueue(t, a, job("qa1", "4"))
		if got := storedLayout(t, a, rdb); got != current {
			t.Fatalf("after the data loss and a call of a store that ran before it: layout %s, want %s", got, current)
		}
		if !strings.Contains(logs.String(), "Redis lost its data") {
			t.Errorf("no line says Redis lost its data; log:\n%s", logs.String())
		}
		redisstore.ExpirePartsRead(b)
		if _, err := b.Claim(ctx, store.ClaimOpts{Queue: "qb", Max: 1, Lease: time.Minute}); err != nil {
			t.Fatal(err)
		}
		requireListed(t, a, before...) // qa1, qa2, qb and pq's partition that got a job
		if n, err := rdb.HGet(ctx, redisstore.PartsKey(a), "pq").Result(); err != nil || n != "3" {
			t.Errorf("pq's partition count after the loss: %q, %v; want 3, declared again", n, err)
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
	})

	// A process that starts on the emptied Redis before any running store
	// reads the shared keys writes the layout and the data's mark of its
	// own: the running store, seeing the mark change, registers its
	// queues again all the same.
	t.Run("NewStoreFirst", func(t *testing.T) {
		srv := redistest.Start(t, redistest.Private())
		rdb := srv.Client(t)
		prefix := redistest.Prefix(t)
		a := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
		mustEnqueue(t, a, job("qa1", "1"), job("qa2", "2"))
		if err := rdb.FlushAll(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
		c := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
		mustEnqueue(t, c, job("qc", "3"))
		redisstore.ExpirePartsRead(a)
		mustEnqueue(t, a, job("qa1", "4"))
		requireListed(t, a, "qa1", "qa2", "qc")
	})

	// The layout key deleted on purpose (ErrLayout's advice for data an
	// old release wrote) is no loss: nothing is put back, nothing said.
	t.Run("LayoutKeyDeleted", func(t *testing.T) {
		srv := redistest.Start(t, redistest.Private())
		rdb := srv.Client(t)
		prefix := redistest.Prefix(t)
		var logs logBuffer
		a := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
		mustEnqueue(t, a, job("q", "1"))
		if err := rdb.Del(t.Context(), redisstore.LayoutKey(a)).Err(); err != nil {
			t.Fatal(err)
		}
		redisstore.ExpirePartsRead(a)
		mustEnqueue(t, a, job("q", "2"))
		if got := storedLayout(t, a, rdb); got != "(none)" {
			t.Errorf("the layout key deleted on purpose came back as %s", got)
		}
		if strings.Contains(logs.String(), "lost its data") {
			t.Errorf("a deleted layout key is taken for lost data:\n%s", logs.String())
		}
	})
}

// requireListed fails unless s's ListQueues lists every one of want.
func requireListed(t *testing.T, s *redisstore.Store, want ...string) {
	t.Helper()
	qs, err := s.ListQueues(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range want {
		if !slices.Contains(qs, q) {
			t.Errorf("after the data loss, ListQueues gives %v: %s is missing", qs, q)
		}
	}
}
