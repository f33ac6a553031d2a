package pgxoutbox_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/internal/pgtest"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// commitState is what a producer knows of one transaction.
type commitState int

const (
	committed  commitState = iota // Commit returned nil
	unknown                       // Commit failed: it may have committed
	rolledBack                    // failed before Commit: no row
)

// write is one producer transaction: the job of user, kept for an hour
// after it runs, so that a second store of it is a duplicate.
type write struct {
	user  int
	state commitState
	began time.Time // when Begin was called
	at    time.Time // when Commit returned
}

// TestRelayPostgresRestart kills PostgreSQL (SIGKILL of the postmaster)
// under load and restarts it 1.5 s later, while producers commit one job
// per transaction every few milliseconds and a relay (default
// configuration) and a worker run. The relay resumes as soon as
// PostgreSQL accepts connections again: the jobs of transactions begun
// after the restart started start within 100 ms of their commit (p99;
// 250 ms under the race detector). No committed job is lost,
// none runs twice, none of a transaction that failed before its commit
// runs.
func TestRelayPostgresRestart(t *testing.T) {
	const (
		producers = 4
		every     = 25 * time.Millisecond // per producer: ~160 jobs a second
		before    = time.Second           // load before the kill
		down      = 1500 * time.Millisecond
		after     = 2 * time.Second // load after the restart
	)
	ctx := context.Background()
	cl := pgtest.NewCluster(t)
	e := newEnvAt(t, cl.URL)
	log := newRunLog()
	startWorker(t, e.store, log)
	run(t, e.relay(t, nil))
	// A first job warms the relay's and the worker's connections up.
	if w := writeJob(ctx, e, 0); w.state != committed {
		t.Fatal("the warm-up transaction failed")
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the warm-up job to run", func() bool {
		_, ok := log.startedAt(0)
		return ok
	})

	var (
		mu     sync.Mutex
		writes []write
		next   atomic.Int64
		wg     sync.WaitGroup
	)
	stop := make(chan struct{})
	for range producers {
		wg.Go(func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				w := writeJob(ctx, e, int(next.Add(1)))
				mu.Lock()
				writes = append(writes, w)
				mu.Unlock()
			}
		})
	}
	var once sync.Once
	stopLoad := func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
		})
	}
	t.Cleanup(stopLoad)

	time.Sleep(before) // the load's schedule, not a synchronisation
	killed := time.Now()
	if err := cl.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(down) // the outage's length, not a synchronisation
	// A transaction begun from here on can only commit on the restarted
	// server (the killed one's backends may still commit for a moment).
	restarting := time.Now()
	if err := cl.Restart(); err != nil {
		t.Fatal(err)
	}
	ready := time.Now()
	time.Sleep(after) // the load's schedule, not a synchronisation
	stopLoad()

	var want []write // committed: must run
	for _, w := range writes {
		if w.state == committed {
			want = append(want, w)
		}
	}
	probe := e.relay(t, nil) // for Stats only
	testutil.Eventually(t, 60*time.Second, func() error {
		runs, _ := log.snapshot()
		missing := 0
		for _, w := range want {
			if runs[w.user] == 0 {
				missing++
			}
		}
		if s := stats(t, probe); s.Depth != 0 || missing != 0 {
			return fmt.Errorf("%d rows waiting, %d of %d committed jobs not run", s.Depth, missing, len(want))
		}
		return nil
	})

	runs, retried := log.snapshot()
	var base, resumed []time.Duration
	counts := map[commitState]int{}
	for _, w := range writes {
		counts[w.state]++
		n := runs[w.user]
		switch {
		case n > 1:
			t.Errorf("job of user %d ran %d times", w.user, n)
		case w.state == rolledBack && n != 0:
			t.Errorf("job of user %d ran, though its transaction failed before its commit", w.user)
		case w.state != committed:
		case w.began.Before(restarting):
			base = append(base, latency(t, log, w))
		default:
			resumed = append(resumed, latency(t, log, w))
		}
	}
	if retried != 0 {
		t.Errorf("%d jobs redelivered, though no worker died", retried)
	}
	t.Logf("PostgreSQL down %v (SIGKILL to accepting connections); %d transactions committed, %d failed before their commit, %d failed at it",
		ready.Sub(killed).Round(time.Millisecond), counts[committed], counts[rolledBack], counts[unknown])
	t.Logf("commit → handler start, begun before the restart: %s", percentiles(base))
	t.Logf("commit → handler start, committed after the restart: %s", percentiles(resumed))
	if len(resumed) < 100 {
		t.Fatalf("only %d transactions committed after the restart; the test needs load there", len(resumed))
	}
	// 100 ms at the p99 is the bound asked for. Under the race detector,
	// with the other packages' tests running beside this one on two CPUs,
	// a p99 of 181 ms was seen in CI; there the bound is 250 ms, which a
	// relay that backed off after the outage (up to MaxBackoff, 5 s)
	// rather than retrying every 25 ms would still miss.
	bound := 100 * time.Millisecond
	if testutil.Race {
		bound = 250 * time.Millisecond
	}
	if p99 := quantile(resumed, 0.99); p99 > bound {
		t.Errorf("commit → handler start p99 %v after the restart, want at most %v", p99, bound)
	}
}

// writeJob enqueues user's job through the outbox in a transaction of
// its own and commits, bounded so that a producer never hangs on a dead
// server.
func writeJob(ctx context.Context, e *env, user int) write {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	w := write{user: user, state: rolledBack, began: time.Now()}
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return w
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(tx), Welcome{User: user}, &hopper.EnqueueOpts{Retention: time.Hour}); err != nil {
		return w
	}
	w.state = unknown
	if err := tx.Commit(ctx); err != nil {
		return w
	}
	w.state, w.at = committed, time.Now()
	return w
}

// latency is the time from w's commit to its handler's start.
func latency(t *testing.T, log *runLog, w write) time.Duration {
	t.Helper()
	at, ok := log.startedAt(w.user)
	if !ok {
		t.Fatalf("job of user %d has no start", w.user)
	}
	return at.Sub(w.at)
}

// quantile returns the q-quantile of lat, which it sorts.
func quantile(lat []time.Duration, q float64) time.Duration {
	slices.Sort(lat)
	return lat[min(len(lat)-1, int(q*float64(len(lat))))]
}

// percentiles formats the count, p50, p99 and max of lat.
func percentiles(lat []time.Duration) string {
	if len(lat) == 0 {
		return "no samples"
	}
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	return fmt.Sprintf("%d jobs, p50 %v, p99 %v, max %v", len(lat), r(quantile(lat, 0.5)), r(quantile(lat, 0.99)), r(slices.Max(lat)))
}
