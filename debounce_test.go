package hopper_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
)

// TestDebounceOnRedis: 1,000 events for one key over 2 s, each enqueued
// with a unique key, a 200 ms delay and both Replace flags, give exactly
// one run, with the last event's args, 200 ms after the last enqueue
// returned (within 20 ms; 100 ms under the race detector, whose scheduling
// noise on two shared CPUs is not the store's).
func TestDebounceOnRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	st := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger()})
	const events, span, debounce = 1000, 2 * time.Second, 200 * time.Millisecond
	type run struct {
		n  int
		at time.Time
	}
	var (
		mu   sync.Mutex
		runs []run
	)
	w := hopper.NewWorker(st, testConfig("debounced"))
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		mu.Lock()
		runs = append(runs, run{n: j.Args.N, at: time.Now()})
		mu.Unlock()
		return nil
	})
	startWorker(t, w)
	c := hopper.NewClient(st, nil)
	opts := &hopper.EnqueueOpts{Queue: "debounced", Unique: &hopper.UniqueOpts{Key: "user:42"},
		Delay: debounce, Replace: hopper.ReplaceArgs | hopper.ReplaceRunAt}
	// One event every 2 ms: the producer's pace, the workload itself.
	tick := time.NewTicker(span / events)
	defer tick.Stop()
	var sent, last time.Time // before and after the last enqueue
	replaced := 0
	for i := 1; i <= events; i++ {
		<-tick.C
		sent = time.Now()
		info, err := hopper.Enqueue(t.Context(), c, Echo{N: i}, opts)
		if err != nil {
			t.Fatal(err)
		}
		last = time.Now()
		if info.Replaced {
			replaced++
		}
	}
	testutil.EventuallyTrue(t, 10*time.Second, "the run", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(runs) > 0
	})
	// Anything more would come within another debounce period or two.
	testutil.Poll(3*debounce, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(runs) > 1
	})
	mu.Lock()
	defer mu.Unlock()
	after := runs[0].at.Sub(last)
	t.Logf("%d events, %d replaced the waiting job; %d run(s), the first with event %d, %v after the last enqueue", events, replaced, len(runs), runs[0].n, after)
	if len(runs) != 1 || runs[0].n != events {
		t.Fatalf("%d runs (first with event %d), want exactly one, with the last event (%d)", len(runs), runs[0].n, events)
	}
	slack := 20 * time.Millisecond
	if testutil.Race {
		slack = 100 * time.Millisecond
	}
	// The store's now at the last enqueue lies between sent and last; due
	// times are whole milliseconds.
	if early := runs[0].at.Sub(sent); early < debounce-time.Millisecond {
		t.Fatalf("the run started %v after the last enqueue was sent, before the debounce of %v", early, debounce)
	}
	if after > debounce+slack {
		t.Fatalf("the run started %v after the last event, want %v (+%v)", after, debounce, slack)
	}
}
