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
// a worker learns the count, from its scheduler's sweep over the
// registry or its claims' reading the counts again every 10 seconds, and
// takes from the partitions.
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
		// The worker's scheduler sweeps every queue of the registry,
		// the partitions among them: it learns the count there (it took
		// them for queues of their own, and kept their keys, under tags
		// the partitions do not have, for good: it claimed nothing).
		redisstore.ExpirePartsRead(worker) // it has run a while
		if _, err := worker.MaintainWorkflows(ctx, 100); err != nil {
			t.Fatal(err)
		}
		if got := claimAll(t, worker, "orders", 7); len(got) != 30 {
			t.Fatalf("the older worker claimed %d jobs of the partitioned queue, want 30", len(got))
		}

		// Processes started together (a deploy): a producer checks the
		// server, another process declares a queue, and the producer's
		// first enqueue to it comes at once after its check.
		fresh := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
		if err := fresh.Check(ctx); err != nil {
			t.Fatal(err)
		}
		decl2 := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"together": 2}})
		if err := decl2.Check(ctx); err != nil {
			t.Fatal(err)
		}
		mustEnqueue(t, fresh, job("together", "t1"), job("together", "t2"), job("together", "t3"))
		if st, err := decl2.GetQueueStats(ctx, "together"); err != nil || st.Counts.Ready != 3 {
			t.Fatalf("a queue declared between a producer's check and its first enqueue: %+v, %v; want its 3 jobs in the partitions", st.Counts, err)
		}

		// A queue used first: its declaration is refused.
		mustEnqueue(t, producer, job("used", "u1"))
		late := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"used": 2}})
		if err := late.Check(ctx); err == nil || !strings.Contains(err.Error(), "was used unpartitioned") {
			t.Fatalf("declaring a queue used unpartitioned: %v, want the refusal", err)
		}
	})
}
