package faulttest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
)

// TestNetworkFaults is scenario 4: latency, timeouts (a link that stops
// forwarding) and connection resets between hopper and Redis, through a
// TCP proxy, for the producer and the workers alike. Producers get typed
// errors, never a silent drop: every enqueue that returned nil ran, and a
// job reported as a duplicate of itself (go-redis retried a write whose
// first try was applied) was stored once and ran once.
func TestNetworkFaults(t *testing.T) {
	const batch = 50
	srv := redistest.Start(t, redistest.Private())
	px := startProxy(t, srv.Addr)
	rdb := redis.NewClient(&redis.Options{
		Addr: px.Addr(), DialTimeout: 300 * time.Millisecond,
		ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond,
	})
	t.Cleanup(func() { _ = rdb.Close() })
	r := newRun(t, rdb)
	var ws []*proctest.Proc
	for i := range 2 {
		w := r.startWorker("w"+strconv.Itoa(i), workerOpts{Addr: px.Addr(), Prefix: r.prefix, Concurrency: 10, Lease: time.Second, Sleep: 20 * time.Millisecond})
		w.WaitReady()
		ws = append(ws, w)
	}

	ctx, stopProducing := context.WithCancel(t.Context())
	var (
		mu       sync.Mutex
		errs     []error
		selfDups []jobKey // reported duplicates of jobs enqueued once
	)
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		for n := 0; ctx.Err() == nil; n++ {
			args := make([]faultJob, batch)
			infos, err := hopper.EnqueueMany(ctx, r.client, args, nil)
			mu.Lock()
			switch {
			case err != nil && ctx.Err() == nil:
				errs = append(errs, err)
			case err == nil:
				r.mu.Lock()
				for _, in := range infos {
					k := jobKey{in.Queue, in.ID}
					if in.Duplicate {
						selfDups = append(selfDups, k) // the IDs are new: a retried write
					}
					r.acked[k] = true // stored either way
				}
				r.mu.Unlock()
			}
			mu.Unlock()
			// Stay near the workers' pace (flow control, polled).
			for ctx.Err() == nil {
				st, err := r.store.GetQueueStats(ctx, "default")
				if err != nil || st.Counts.Ready < batch {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}()
	progress := func(more int) {
		t.Helper()
		want := len(finals(r.ledgers())) + more
		r.procs.Eventually(60*time.Second, func() error {
			if n := len(finals(r.ledgers())); n < want {
				return fmt.Errorf("%d jobs finished, waiting for %d", n, want)
			}
			return nil
		})
	}
	errCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(errs)
	}

	progress(300)
	px.setLatency(20 * time.Millisecond)
	progress(200)
	px.setLatency(0)
	for range 3 { // timeouts: the link holds everything until an enqueue fails
		before := errCount()
		r.addFault("")
		px.pause()
		r.procs.Eventually(10*time.Second, func() error {
			if errCount() == before {
				return errors.New("no enqueue failed yet while the link is stalled")
			}
			return nil
		})
		px.unpause()
		progress(200)
	}
	for range 5 { // resets
		r.addFault("")
		px.reset()
		progress(100)
	}
	stopProducing()
	<-produced
	r.waitQuiet(60 * time.Second)
	for _, w := range ws {
		w.Stop()
	}

	mu.Lock()
	defer mu.Unlock()
	for _, err := range errs {
		if !isTyped(err) {
			t.Errorf("enqueue failed with an untyped error: %v", err)
		}
	}
	if len(errs) == 0 {
		t.Error("no enqueue failed: the faults did not reach the producer")
	}
	t.Logf("%d enqueue errors, all typed; %d jobs reported as duplicates of themselves", len(errs), len(selfDups))
	r.check(1)
}
