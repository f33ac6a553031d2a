package faulttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
)

// TestStalledWorker is scenario 2: a worker stopped with SIGSTOP past its
// leases, then continued with SIGCONT. Another worker has taken its jobs
// meanwhile; the stalled worker's late ack and extend are refused by the
// token check, and each job's state stays the new owner's.
func TestStalledWorker(t *testing.T) {
	const (
		jobs  = 8
		lease = time.Second
	)
	srv := redistest.Start(t, redistest.Private())
	r := newRun(t, srv.Client(t))
	ctx := t.Context()
	a := r.startWorker("stalled", workerOpts{Addr: srv.Addr, Prefix: r.prefix, Concurrency: 4, Lease: lease, Sleep: 500 * time.Millisecond})
	a.WaitReady()
	if err := r.enqueue(ctx, "default", jobs, jobs, nil); err != nil {
		t.Fatal(err)
	}
	r.procs.Eventually(30*time.Second, func() error {
		if n := running(r.ledgers(), a.Name()); n < 4 {
			return fmt.Errorf("stalled worker runs %d jobs, want 4", n)
		}
		return nil
	})
	a.Freeze()
	r.addFault(a.Name())
	// What the stalled worker holds: claims without a finish.
	held := map[string]uint64{} // job id -> its token
	for _, e := range r.ledgers() {
		if e.Child == a.Name() && e.Ev == "claim" {
			held[e.Job] = e.Token
		}
	}
	for _, e := range r.ledgers() {
		if e.Child == a.Name() && e.Ev == "fin" && held[e.Job] == e.Token {
			delete(held, e.Job)
		}
	}
	if len(held) == 0 {
		t.Fatal("the stalled worker holds no job")
	}

	// A second worker takes them over once the leases run out; its jobs
	// run long enough to be still running when the stalled one wakes.
	b := r.startWorker("owner", workerOpts{Addr: srv.Addr, Prefix: r.prefix, Concurrency: 10, Lease: lease, Sleep: 5 * time.Second})
	owner := map[string]uint64{}
	r.procs.Eventually(30*time.Second, func() error {
		for _, e := range r.ledgers() {
			if e.Child == b.Name() && e.Ev == "claim" {
				owner[e.Job] = e.Token
			}
		}
		for id := range held {
			if owner[id] == 0 {
				return fmt.Errorf("job %s not taken over yet", id)
			}
		}
		return nil
	})
	a.Thaw()

	// Every late call of the stalled worker on a job it held is refused.
	r.procs.Eventually(30*time.Second, func() error {
		refused := map[string]bool{}
		for _, e := range r.ledgers() {
			if e.Child != a.Name() || held[e.Job] != e.Token || (e.Ev != "fin" && e.Ev != "ext") {
				continue
			}
			if e.Err == "" {
				t.Fatalf("stalled worker's late %s of job %s (outcome %q) succeeded with a stale token", e.Ev, e.Job, e.Outcome)
			}
			if e.Err != hopper.ErrLeaseLost.Error() {
				t.Fatalf("stalled worker's late %s of job %s failed with %q, want %q", e.Ev, e.Job, e.Err, hopper.ErrLeaseLost)
			}
			refused[e.Job] = true
		}
		if len(refused) < len(held) {
			return fmt.Errorf("late calls refused for %d of %d jobs", len(refused), len(held))
		}
		return nil
	})
	// The jobs are still the new owner's: running under its token.
	for id := range held {
		rec, err := r.store.GetJob(ctx, "default", id)
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		if rec.State != hopper.StateUnack || rec.Token != owner[id] {
			t.Errorf("job %s after the stalled worker woke: state %s token %d, want unack with the new owner's token %d", id, rec.State, rec.Token, owner[id])
		}
	}
	r.waitQuiet(30 * time.Second)
	a.Stop()
	b.Stop()
	t.Logf("%d jobs held by the stalled worker, each taken over and its late calls refused", len(held))
	r.check(1)
}
