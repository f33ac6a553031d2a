package pgxoutbox_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestRelaySIGKILL runs relays as processes of their own and kills one
// with SIGKILL every second (on average), restarting it, while 50,000 jobs
// go through the outbox at 5,000 a second (5,000 at 1,000 a second with
// -short). Half the jobs keep their ID for a Retention, half do not. At
// the end no job is lost, none is redelivered, every retained job ran
// exactly once, and the outbox is empty. A job without retention runs
// again for each relay killed between storing its batch and committing
// it, once the first run finished: each kill adds at most one batch of
// such runs, and a job runs at most once more than there were kills
// (two kills in a row can land in the two windows of the same rows).
func TestRelaySIGKILL(t *testing.T) {
	total, txPerTick := 50000, 5 // 250 jobs every 50 ms: 10 s
	if testing.Short() {
		total, txPerTick = 5000, 1 // 50 jobs every 50 ms: 5 s
	}
	const perTx, batch = 50, 200
	ctx := context.Background()
	e := newEnv(t)
	log := newRunLog()
	startWorker(t, e.store, log)

	// Two relay processes; the killer kills one of them every second.
	var (
		mu       sync.Mutex
		children [2]*exec.Cmd
		kills    int
	)
	for i := range children {
		cmd, err := startChild(e, batch)
		if err != nil {
			t.Fatal(err)
		}
		children[i] = cmd
	}
	stopKiller := make(chan struct{})
	killerDone := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			// The kill cadence, the test's workload: every second on
			// average, jittered so that kills do not lock on to the
			// writers' pace and land at every point of a relay's batch.
			pause := time.NewTimer(750*time.Millisecond + rand.N(500*time.Millisecond))
			select {
			case <-stopKiller:
				pause.Stop()
				killerDone <- nil
				return
			case <-pause.C:
			}
			mu.Lock()
			c := children[i%2]
			_ = c.Process.Kill()
			_ = c.Wait()
			cmd, err := startChild(e, batch)
			if err == nil {
				children[i%2] = cmd
				kills++
			}
			mu.Unlock()
			if err != nil {
				killerDone <- err
				return
			}
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range children {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})

	// Write the jobs at a steady pace; even users keep their ID for an
	// hour after they finish.
	retained := map[int]bool{}
	pace := time.NewTicker(50 * time.Millisecond)
	start := time.Now()
	for user := 0; user < total; {
		<-pace.C
		for range txPerTick {
			if user >= total {
				break
			}
			tx, err := e.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for range perTx / 2 {
				for _, keep := range []bool{true, false} {
					opts := &hopper.EnqueueOpts{}
					if keep {
						opts.Retention = time.Hour
					}
					if _, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(tx), Welcome{User: user}, opts); err != nil {
						t.Fatal(err)
					}
					retained[user] = keep
					user++
				}
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	pace.Stop()
	written := time.Since(start)

	probe := e.relay(t, nil) // for Stats only
	testutil.Eventually(t, 60*time.Second, func() error {
		runs, _ := log.snapshot()
		if s := stats(t, probe); s.Depth != 0 || len(runs) < total {
			return fmt.Errorf("%d rows waiting, %d of %d jobs run", s.Depth, len(runs), total)
		}
		return nil
	})
	close(stopKiller)
	if err := <-killerDone; err != nil {
		t.Fatal(err)
	}
	runs, retried := log.snapshot()
	mu.Lock()
	killed := kills
	mu.Unlock()
	extra := map[int]int{} // jobs without retention by their runs beyond the first
	again := 0
	for user := range total {
		n := runs[user]
		switch {
		case n == 0:
			t.Errorf("job of user %d lost", user)
		case n > 1 && retained[user]:
			t.Errorf("job of user %d kept for its retention ran %d times", user, n)
		case n > 1+killed:
			t.Errorf("job of user %d ran %d times, with %d relays killed", user, n, killed)
		case n > 1:
			extra[n-1]++
			again += n - 1
		}
	}
	if again > killed*batch {
		t.Errorf("%d runs beyond the first, more than %d kills can cause with batches of %d", again, killed, batch)
	}
	if retried != 0 {
		t.Errorf("%d jobs redelivered, though no worker died", retried)
	}
	if s := stats(t, probe); s != (pgxoutbox.Stats{}) {
		t.Errorf("outbox at the end: %+v, want empty", s)
	}
	t.Logf("%d jobs written in %v, %d relay processes killed; jobs without retention that ran again, by extra runs: %v", total, written.Round(time.Millisecond), killed, extra)
}
