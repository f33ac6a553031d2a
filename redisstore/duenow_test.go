package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// A call of jobs all due now goes as pairs, ID and value (enqueue.go's
// dueNow), to the plain variant's fast path; every path that takes it
// over with triples (a shaped queue, known to the store or not, and the
// queue's events being read) still stores each job with its own
// arguments, in calls of a few jobs (one HSETNX each) and of more
// (adds/plain.lua's store_many: one HMGET and one HSET).
func TestJobsDueNowKeepTheirArgumentsOnEveryPath(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	other := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	shapeBy := func(st *redisstore.Store, q string) {
		t.Helper()
		j := job(q, q+"-urgent")
		j.Priority = 2
		mustEnqueue(t, st, j)
	}
	cases := []struct {
		queue string
		setup func(q string) (pos string)
	}{
		// The first call reads the marks and sets the lean mark; the
		// next ones take the lean way.
		{"plain", nil},
		// The store gave the queue priorities: its first plain call is
		// refused and sent again to the shaped variant, as pairs; the
		// store then knows the shape and sends the next ones triples.
		{"known-shape", func(q string) string { shapeBy(s, q); return "" }},
		// Another store gave the queue priorities: the same, from a
		// shape this store never wrote.
		{"unknown-shape", func(q string) string { shapeBy(other, q); return "" }},
		// A reader reads the queue's events: the fast path writes them.
		{"read", func(q string) string {
			_, pos, _ := readAll(t, s, q, store.FromNow)
			return pos
		}},
	}
	for _, c := range cases {
		t.Run(c.queue, func(t *testing.T) {
			q := c.queue
			var pos string
			if c.setup != nil {
				pos = c.setup(q)
			}
			args := map[string]string{}
			var sent []string
			for call, n := range []int{3, 10, 2} {
				jobs := make([]*store.NewJob, n)
				for i := range jobs {
					id := fmt.Sprintf("%s-%d-%d", q, call, i)
					jobs[i] = job(q, id)
					args[id] = string(jobs[i].Args)
					sent = append(sent, id)
				}
				mustEnqueue(t, s, jobs...)
			}
			for _, id := range sent {
				rec, err := s.GetJob(ctx, q, id)
				if err != nil {
					t.Fatalf("GetJob(%s): %v", id, err)
				}
				if rec.State != store.StateReady || string(rec.Args) != args[id] {
					t.Errorf("job %s: %s with args %q, want ready with %q", id, rec.State, rec.Args, args[id])
				}
			}
			res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 100, Lease: time.Minute, WorkerID: "w"})
			if err != nil {
				t.Fatal(err)
			}
			var claimed []string
			for _, j := range res.Jobs {
				if _, ok := args[j.ID]; !ok {
					continue // the job that gave the queue its shape
				}
				claimed = append(claimed, j.ID)
				if string(j.Args) != args[j.ID] {
					t.Errorf("claimed %s with args %q, want %q", j.ID, j.Args, args[j.ID])
				}
			}
			if !slices.Equal(claimed, sent) {
				t.Errorf("claimed %v, want %v in the order sent", claimed, sent)
			}
			if c.queue == "read" {
				if ids, _, lost := readAll(t, s, q, pos); len(lost) != 0 || !slices.Equal(ids[:min(len(ids), len(sent))], sent) {
					t.Errorf("events read: %v, lost %v; want the enqueues of %v first", ids, lost, sent)
				}
			}
		})
	}
}
