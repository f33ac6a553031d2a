package redisstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestPartitionDeclaredAfterStart: processes that started before a queue
// was declared partitioned learn of it. A producer's first enqueue to the
// queue goes to its partitions (it went to the queue's own keys, where the
// partitioned queue's workers never look, and waited there for good), and
// a worker's claims read the counts again and take from the partitions.
// A queue a producer used first stays unpartitioned: the declaration is
// refused.
func TestPartitionDeclaredAfterStart(t *testing.T) {
	onServerAndCluster(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := t.Context()
		prefix := strings.ReplaceAll(t.Name(), "/", "-")
		producer := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
		worker := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
		for _, s := range []*redisstore.Store{producer, worker} {
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// Both started; then a deploy declares "orders" partitioned.
		declaring := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"orders": 3}})
		if err := declaring.Check(ctx); err != nil {
			t.Fatal(err)
		}
		// The producer has run a while (its counts are older than a
		// first call's).
		redisstore.ExpirePartsRead(producer)
		var jobs []*store.NewJob
		for i := range 30 {
			jobs = append(jobs, job("orders", fmt.Sprintf("o%d", i)))
		}
		mustEnqueue(t, producer, jobs...)
		st, err := declaring.GetQueueStats(ctx, "orders")
		if err != nil || st.Counts.Ready != 30 {
			t.Fatalf("the partitioned queue after the older producer's enqueue: %+v, %v; want its 30 jobs", st.Counts, err)
		}
		if n, err := producer.Partitions(ctx, "orders"); err != nil || len(n) != 3 {
			t.Fatalf("the producer's partitions of orders: %v, %v; want 3", n, err)
		}
		// The worker learns at its next read of the counts.
		redisstore.ExpirePartsRead(worker)
		if got := claimAll(t, worker, "orders", 7); len(got) != 30 {
			t.Fatalf("the older worker claimed %d jobs of the partitioned queue, want 30", len(got))
		}

		// A queue used first: its declaration is refused.
		mustEnqueue(t, producer, job("used", "u1"))
		late := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"used": 2}})
		if err := late.Check(ctx); err == nil || !strings.Contains(err.Error(), "already holds jobs") {
			t.Fatalf("declaring a queue used unpartitioned: %v, want the refusal", err)
		}
	})
}
