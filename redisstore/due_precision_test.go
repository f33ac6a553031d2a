package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestDelayedJobsFallDueToTheMicrosecond: a delayed job is promoted by the
// first Maintain that starts at or after its due time, to the
// microsecond, and by none that ends before it. Due times were rounded up
// to the millisecond twice (the Delay, and the server's now it counts
// from), so a job asked for in 20.3 ms fell due up to 2 ms late: the
// larger part of a delayed job's lateness in the shared harness's W4.
//
// Nothing here waits on a timer: the server's TIME, read around each
// call, says which calls had to promote the job and which must not have.
func TestDelayedJobsFallDueToTheMicrosecond(t *testing.T) {
	for _, c := range []struct {
		name string
		// enqueue stores job "j" in queue "q", due in d, and returns the
		// earliest and the latest time it may fall due by the server's
		// clock, and the enqueue's result.
		enqueue func(t *testing.T, s store.Store, rdb *redis.Client, d time.Duration) (earliest, latest time.Time, res store.EnqueueResult)
	}{
		{"Delay", func(t *testing.T, s store.Store, rdb *redis.Client, d time.Duration) (time.Time, time.Time, store.EnqueueResult) {
			before := serverTime(t, rdb)
			res := enqueueOne(t, s, &store.NewJob{ID: "j", Queue: "q", Kind: "k", Delay: d})
			return before.Add(d), serverTime(t, rdb).Add(d), res
		}},
		{"RunAt", func(t *testing.T, s store.Store, rdb *redis.Client, d time.Duration) (time.Time, time.Time, store.EnqueueResult) {
			// 100 µs past a millisecond: the rounding up to the next one
			// left 900 µs in which the job was due and not promoted.
			at := time.UnixMicro(serverTime(t, rdb).Add(d).UnixMilli()*1000 + 100)
			res := enqueueOne(t, s, &store.NewJob{ID: "j", Queue: "q", Kind: "k", RunAt: at})
			return at, at, res
		}},
		{"ReplaceRunAt", func(t *testing.T, s store.Store, rdb *redis.Client, d time.Duration) (time.Time, time.Time, store.EnqueueResult) {
			first := &store.NewJob{ID: "j", Queue: "q", Kind: "k", Delay: time.Hour}
			first.UniqueKey = "u"
			enqueueOne(t, s, first)
			at := time.UnixMicro(serverTime(t, rdb).Add(d).UnixMilli()*1000 + 100)
			again := &store.NewJob{ID: "j2", Queue: "q", Kind: "k", RunAt: at, Replace: store.ReplaceRunAt}
			again.UniqueKey = "u"
			res := enqueueOne(t, s, again)
			if !res.Replaced {
				t.Fatalf("Enqueue with ReplaceRunAt: %+v; want the pending job's due time replaced", res)
			}
			return at, at, res
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// 20.3 ms, longer while the machine is so slow that the job
			// was due before the enqueue reached the server (it is then
			// ready at once, and there is nothing to promote).
			for d := 20*time.Millisecond + 300*time.Microsecond; ; d *= 2 {
				s, rdb := newStore(t, &redisstore.Config{NoCoalescing: true})
				earliest, latest, res := c.enqueue(t, s, rdb, d)
				if res.State == store.StateReady {
					if d > time.Minute {
						t.Fatalf("job due in %v was ready when enqueued", d)
					}
					continue
				}
				requirePromotedOnTime(t, s, rdb, earliest, latest, d)
				return
			}
		})
	}
}

// TestAttemptInfoWithAMicrosecondReadyTime: an older release's promotion
// copies a due time's score into the job's attempt info as it is, now
// with decimals. The attempt count in it still counts: a job promoted so
// after two attempts is claimed for its third, not its first.
func TestAttemptInfoWithAMicrosecondReadyTime(t *testing.T) {
	ctx := t.Context()
	s, rdb := newStore(t, &redisstore.Config{NoCoalescing: true})
	mustEnqueue(t, s, job("q", "j"))
	if err := rdb.HSet(ctx, redisstore.AttKey(s, "q"), "j", "2,,,1780000001234.5681").Err(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("claim: %v, %v", res.Jobs, err)
	}
	if got := res.Jobs[0].Attempt; got != 3 {
		t.Errorf("claimed for attempt %d, want 3 (two made before the promotion)", got)
	}
	if got, want := res.Jobs[0].RunAt, time.UnixMilli(1780000001234); !got.Equal(want) {
		t.Errorf("RunAt %v, want the ready time in whole ms, %v", got, want)
	}
}

// requirePromotedOnTime calls Maintain on queue "q" until it promotes the
// one pending job, due between earliest and latest (at most d from now),
// and fails if a call that started at or after latest did not promote it,
// or one that ended before earliest did.
func requirePromotedOnTime(t *testing.T, s store.Store, rdb *redis.Client, earliest, latest time.Time, d time.Duration) {
	t.Helper()
	for calls := 1; ; calls++ {
		start := serverTime(t, rdb)
		res, err := s.Maintain(t.Context(), "q", store.MaintainOpts{})
		if err != nil {
			t.Fatal(err)
		}
		end := serverTime(t, rdb)
		if res.Promoted > 0 {
			if end.Before(earliest) {
				t.Fatalf("promoted by a Maintain that ended at %v, %v before the job was due", end, earliest.Sub(end))
			}
			return
		}
		if !start.Before(latest) {
			t.Fatalf("a Maintain that started %v after the job's due time (call %d) did not promote it", start.Sub(latest), calls)
		}
		if res.NextIn < 0 || res.NextIn > d {
			t.Fatalf("NextIn %v with the job due within %v", res.NextIn, d)
		}
	}
}

// enqueueOne enqueues j and returns its result, failing on an error.
func enqueueOne(t *testing.T, s store.Store, j *store.NewJob) store.EnqueueResult {
	t.Helper()
	res, err := s.Enqueue(t.Context(), []*store.NewJob{j})
	if err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	return res[0]
}

// serverTime returns the Redis server's clock.
func serverTime(t *testing.T, rdb *redis.Client) time.Time {
	t.Helper()
	now, err := rdb.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}
