package faulttest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
)

// TestFrozenConsumerTakesNoWakeup is scenario 10: three workers on one
// queue with the library's default waits (5 s idle wait), one of them
// frozen with SIGSTOP.
//
// First, all idle: a job enqueued while one of them is frozen in its wait
// is started by a live one within 100 ms of the enqueue call, five times
// over (each time another worker frozen): a frozen process takes no
// wake-up away from the others.
//
// Then a frozen worker holds a running job (lease 500 ms): a live worker
// starts the job within 100 ms of its lease deadline (as the unack set
// holds it after the freeze, by Redis time), never before; once resumed,
// the frozen worker's late ack is refused with ErrLeaseLost (fencing) and
// the job is acked once, by its new owner. Three times over.
func TestFrozenConsumerTakesNoWakeup(t *testing.T) {
	const (
		bound  = 100 * time.Millisecond
		rounds = 5
		held   = 3
		lease  = 500 * time.Millisecond
		sleep  = 2 * time.Second // the running job of the second part
	)
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	r := newRun(t, rdb)
	ctx := t.Context()

	// Idle workers, jobs that end at once.
	var idle []*proctest.Proc
	for i := range 3 {
		w := r.startWorker("idle"+strconv.Itoa(i), workerOpts{Addr: srv.Addr, Prefix: r.prefix, Concurrency: 4, Defaults: true})
		idle = append(idle, w)
	}
	for _, w := range idle {
		w.WaitReady()
	}
	// The client's start-up check (the server's version, loading the
	// scripts) runs before its first operation and took up to 2 s under
	// the race detector: the bound is for the wake-up, so it runs first.
	if err := r.store.Check(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // past their first claims and into their waits
	var lats []time.Duration
	for i := range rounds {
		victim := idle[i%len(idle)]
		victim.Freeze()
		r.addFault(victim.Name())
		time.Sleep(50 * time.Millisecond)
		before := time.Now()
		info, err := hopper.Enqueue(ctx, r.client, faultJob{N: i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		returned := time.Now()
		r.mu.Lock()
		r.acked[jobKey{info.Queue, info.ID}] = true
		r.mu.Unlock()
		st := waitStart(t, r, info.ID, 0)
		lat := at(st).Sub(before)
		lats = append(lats, lat)
		t.Logf("round %d: %s frozen; job started by %s %v after the enqueue call (which took %v)", i+1, victim.Name(), st.Child, lat, returned.Sub(before).Round(time.Microsecond))
		if st.Child == victim.Name() {
			t.Errorf("round %d: the frozen worker %s started the job", i+1, victim.Name())
		}
		if lat > bound {
			t.Errorf("round %d: with %s frozen, the job started %v after the enqueue, want within %v", i+1, victim.Name(), lat, bound)
		}
		victim.Thaw()
		waitAcked(t, r, info.ID)
		time.Sleep(200 * time.Millisecond) // every worker back in its wait
	}
	t.Logf("idle workers, one frozen: enqueue->start %v (max %v, bound %v)", lats, pct(lats, 100), bound)
	for _, w := range idle {
		w.Stop()
	}

	// A frozen worker holding a running job.
	var ws []*proctest.Proc
	for i := range 3 {
		ws = append(ws, r.startWorker("run"+strconv.Itoa(i), workerOpts{Addr: srv.Addr, Prefix: r.prefix, Concurrency: 4, Lease: lease, Sleep: sleep, Defaults: true}))
	}
	byID := map[string]*proctest.Proc{}
	for _, w := range ws {
		w.WaitReady()
		byID[w.Name()] = w
	}
	time.Sleep(time.Second)
	var after []time.Duration
	for i := range held {
		info, err := hopper.Enqueue(ctx, r.client, faultJob{N: 100 + i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.mu.Lock()
		r.acked[jobKey{info.Queue, info.ID}] = true
		r.mu.Unlock()
		first := waitStart(t, r, info.ID, 0)
		x := byID[first.Child]
		// Freeze it mid-job, after a few renewals.
		time.Sleep(time.Until(at(first).Add(time.Second)))
		x.Freeze()
		r.addFault(x.Name())
		time.Sleep(30 * time.Millisecond) // a renewal it had sent lands first
		deadline, err := unackDeadline(ctx, rdb, r.prefix, "default", info.ID, first.Token)
		if err != nil {
			t.Fatalf("round %d: the frozen worker's lease of %s: %v", i+1, info.ID, err)
		}
		next := waitStart(t, r, info.ID, first.Token)
		claim := claimOf(t, r, info.ID, next.Token)
		d := at(next).Sub(deadline)
		after = append(after, d)
		t.Logf("round %d: %s frozen holding %s (token %d, lease deadline %s); %s claimed it %d ms and started it %v after the deadline",
			i+1, x.Name(), info.ID, first.Token, deadline.Format("15:04:05.000"), next.Child, claim.AttemptedAt.UnixMilli()-deadline.UnixMilli(), d)
		switch {
		case next.Child == x.Name():
			t.Errorf("round %d: the frozen worker %s started the job again", i+1, x.Name())
		case claim.AttemptedAt.UnixMilli() < deadline.UnixMilli():
			t.Errorf("round %d: %s claimed the job %d ms before the frozen worker's lease deadline", i+1, next.Child, deadline.UnixMilli()-claim.AttemptedAt.UnixMilli())
		case d > bound:
			t.Errorf("round %d: the job started %v after the frozen worker's lease deadline, want within %v", i+1, d, bound)
		}
		// Resume it once its handler's sleep has passed (so it returns at
		// once and acks) and while the new owner still runs the job.
		time.Sleep(time.Until(at(first).Add(sleep + 300*time.Millisecond)))
		if running(r.ledgers(), next.Child) == 0 {
			t.Fatalf("round %d: the new owner %s no longer runs the job when the frozen worker wakes", i+1, next.Child)
		}
		x.Thaw()
		late := waitLate(t, r, x.Name(), info.ID, first.Token)
		t.Logf("round %d: %s resumed; its late calls: %s", i+1, x.Name(), late)
		waitAcked(t, r, info.ID)
		acks := 0
		for _, e := range r.ledgers() {
			if e.Ev == "fin" && e.Job == info.ID && e.Err == "" && e.Outcome == hopper.OutcomeAck.String() {
				acks++
				if e.Child != next.Child || e.Token != next.Token {
					t.Errorf("round %d: job %s acked by %s (token %d), want its new owner %s (token %d)", i+1, info.ID, e.Child, e.Token, next.Child, next.Token)
				}
			}
		}
		if acks != 1 {
			t.Errorf("round %d: job %s acked %d times, want once", i+1, info.ID, acks)
		}
	}
	t.Logf("frozen worker holding a job: the reclaimed job started %v after the lease deadline (bound %v)", after, bound)
	r.waitQuiet(30 * time.Second)
	for _, w := range ws {
		w.Stop()
	}
	r.check(1)
}

// waitStart waits for a start of job id with a token above after, and
// returns the first.
func waitStart(t *testing.T, r *run, id string, after uint64) proctest.Event {
	t.Helper()
	var got proctest.Event
	r.procs.Eventually(20*time.Second, func() error {
		for _, e := range r.ledgers() {
			if e.Ev == "start" && e.Job == id && e.Token > after {
				got = e
				return nil
			}
		}
		return fmt.Errorf("job %s not started (token above %d) yet", id, after)
	})
	return got
}

// claimOf returns the claim of job id with token.
func claimOf(t *testing.T, r *run, id string, token uint64) proctest.Event {
	t.Helper()
	for _, e := range r.ledgers() {
		if e.Ev == "claim" && e.Job == id && e.Token == token {
			return e
		}
	}
	t.Fatalf("no claim of job %s with token %d in the ledger", id, token)
	return proctest.Event{}
}

// waitAcked waits until job id has a successful ack in the ledger.
func waitAcked(t *testing.T, r *run, id string) {
	t.Helper()
	r.procs.Eventually(20*time.Second, func() error {
		for _, e := range r.ledgers() {
			if e.Ev == "fin" && e.Job == id && e.Err == "" && e.Outcome == hopper.OutcomeAck.String() {
				return nil
			}
		}
		return fmt.Errorf("job %s not acked yet", id)
	})
}

// waitLate waits for the late calls of a resumed worker on the job it held
// with token (a renewal, an ack, or both), and asserts that every such
// call was refused with ErrLeaseLost. It returns a summary.
func waitLate(t *testing.T, r *run, worker, id string, token uint64) string {
	t.Helper()
	var summary string
	r.procs.Eventually(20*time.Second, func() error {
		var acked, extended bool
		summary = ""
		for _, e := range r.ledgers() {
			if e.Child != worker || e.Job != id || e.Token != token || (e.Ev != "fin" && e.Ev != "ext") {
				continue
			}
			if e.Err == "" {
				t.Fatalf("the resumed worker's late %s of job %s (outcome %q) succeeded with its stale token", e.Ev, id, e.Outcome)
			}
			if e.Err != hopper.ErrLeaseLost.Error() {
				t.Fatalf("the resumed worker's late %s of job %s (outcome %q) failed with %q, want %q", e.Ev, id, e.Outcome, e.Err, hopper.ErrLeaseLost)
			}
			summary += fmt.Sprintf("[%s %s: %s] ", e.Ev, e.Outcome, e.Err)
			acked = acked || e.Ev == "fin" && e.Outcome == hopper.OutcomeAck.String()
			extended = extended || e.Ev == "ext"
		}
		// A resumed worker whose renewal is refused before its handler
		// returns knows the lease is lost and sends no ack at all; one
		// whose handler returns first sends the ack, which is refused.
		if !acked && !extended {
			return fmt.Errorf("no late call of job %s from %s yet", id, worker)
		}
		return nil
	})
	return summary
}

// unackDeadline returns the lease deadline of job id held with token, by
// Redis time, from the queue's unack set.
func unackDeadline(ctx context.Context, rdb redis.UniversalClient, prefix, queue, id string, token uint64) (time.Time, error) {
	score, err := rdb.ZScore(ctx, "{"+prefix+":"+queue+"}:u", id+"|"+strconv.FormatUint(token, 10)).Result()
	return time.UnixMilli(int64(score)), err
}
