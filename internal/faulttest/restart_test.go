package faulttest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
)

// TestRedisRestart is scenario 3: Redis, with an AOF fsynced on every
// write, killed with SIGKILL and restarted three times during a run and
// shut down cleanly and restarted once. Every acknowledged enqueue is
// processed; workers and the producer reconnect by themselves, and the
// scripts are callable after every restart: hopper's function libraries
// come back with the AOF (a server that lost them gets them loaded again
// on the first call that misses one: redisstore's TestFunctionsLoadedAgain).
// The producer's failed enqueues carry a typed error.
func TestRedisRestart(t *testing.T) {
	const (
		batch  = 100
		faults = 4 // three kills, then a clean shutdown
	)
	srv := redistest.Start(t, redistest.Args("--appendonly", "yes", "--appendfsync", "always"))
	r := newRun(t, srv.Client(t))
	var ws []*proctest.Proc
	for i := range 3 {
		w := r.startWorker("w"+strconv.Itoa(i), workerOpts{Addr: srv.Addr, Prefix: r.prefix, Concurrency: 10, Lease: time.Second, Sleep: 20 * time.Millisecond})
		w.WaitReady()
		ws = append(ws, w)
	}

	// The producer enqueues until told to stop, through the faults.
	ctx, stopProducing := context.WithCancel(t.Context())
	var (
		mu      sync.Mutex
		errs    []error
		batches int
	)
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		for ctx.Err() == nil {
			err := r.enqueue(ctx, "default", batch, batch, nil)
			mu.Lock()
			batches++
			if err != nil && ctx.Err() == nil {
				errs = append(errs, err)
			}
			mu.Unlock()
			if err != nil {
				continue
			}
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

	for i := range faults {
		want := r.ackedCount() + 1000
		r.procs.Eventually(60*time.Second, func() error {
			if n := len(finals(r.ledgers())); n < want {
				return fmt.Errorf("%d jobs finished, waiting for %d before fault %d", n, want, i+1)
			}
			return nil
		})
		r.addFault("")
		if i < faults-1 {
			srv.Kill(t)
		} else {
			srv.Stop(t)
		}
		srv.Restart(t)
	}
	// Work goes on after the last restart: the producer gets enqueues
	// through and the workers finish them.
	want := r.ackedCount() + 500
	r.procs.Eventually(60*time.Second, func() error {
		if n := len(finals(r.ledgers())); n < want {
			return fmt.Errorf("%d jobs finished after the last restart, waiting for %d", n, want)
		}
		return nil
	})
	// The libraries are on the restarted server.
	info, err := r.rdb.InfoMap(t.Context(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	if n := info["Memory"]["number_of_functions"]; n == "" || n == "0" {
		t.Errorf("number_of_functions = %q after the last restart, want hopper's libraries", n)
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
	t.Logf("%d batches of %d, %d failed while Redis was down or loading", batches, batch, len(errs))
	r.check(1)
}
