package faulttest

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
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
	var idle []*workerProc
	for i := range 3 {
		w := startWorker(t, r.dir, "idle"+strconv.Itoa(i), workerOpts{addr: srv.Addr, prefix: r.prefix, concurrency: 4, defaults: true})
		idle = append(idle, w)
	}
	for _, w := range idle {
		w.waitUp(t)
	}
	time.Sleep(time.Second) // past their first claims and into their waits
	var lats []time.Duration
	for i := range rounds {
		victim := idle[i%len(idle)]
		victim.signal(t, syscall.SIGSTOP)
		r.addFault(victim.id)
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
		lat := st.at().Sub(before)
		lats = append(lats, lat)
		t.Logf("round %d: %s frozen; job started by %s %v after the enqueue call (which took %v)", i+1, victim.id, st.Worker, lat, returned.Sub(before).Round(time.Microsecond))
		if st.Worker == victim.id {
			t.Errorf("round %d: the frozen worker %s started the job", i+1, victim.id)
		}
		if lat > bound {
			t.Errorf("round %d: with %s frozen, the job started %v after the enqueue, want within %v", i+1, victim.id, lat, bound)
		}
		victim.signal(t, syscall.SIGCONT)
		waitAcked(t, r, info.ID)
		time.Sleep(200 * time.Millisecond) // every worker back in its wait
	}
	t.Logf("idle workers, one frozen: enqueue->start %v (max %v, bound %v)", lats, pct(lats, 100), bound)
	for _, w := range idle {
		w.stop(t)
	}

	// A frozen worker holding a running job.
	var ws []*workerProc
	for i := range 3 {
		ws = append(ws, startWorker(t, r.dir, "run"+strconv.Itoa(i), workerOpts{addr: srv.Addr, prefix: r.prefix, concurrency: 4, lease: lease, sleep: sleep, defaults: true}))
	}
	byID := map[string]*workerProc{}
	for _, w := range ws {
		w.waitUp(t)
		byID[w.id] = w
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
		x := byID[first.Worker]
		// Freeze it mid-job, after a few renewals.
		time.Sleep(time.Until(first.at().Add(time.Second)))
		x.signal(t, syscall.SIGSTOP)
		r.addFault(x.id)
		time.Sleep(30 * time.Millisecond) // a renewal it had sent lands first
		deadline, err := unackDeadline(ctx, rdb, r.prefix, "default", info.ID, first.Token)
		if err != nil {
			t.Fatalf("round %d: the frozen worker's lease of %s: %v", i+1, info.ID, err)
		}
		next := waitStart(t, r, info.ID, first.Token)
		claim := claimOf(t, r, info.ID, next.Token)
		d := next.at().Sub(deadline)
		after = append(after, d)
		t.Logf("round %d: %s frozen holding %s (token %d, lease deadline %s); %s claimed it %d ms and started it %v after the deadline",
			i+1, x.id, info.ID, first.Token, deadline.Format("15:04:05.000"), next.Worker, claim.Claimed-deadline.UnixMilli(), d)
		switch {
		case next.Worker == x.id:
			t.Errorf("round %d: the frozen worker %s started the job again", i+1, x.id)
		case claim.Claimed < deadline.UnixMilli():
			t.Errorf("round %d: %s claimed the job %d ms before the frozen worker's lease deadline", i+1, next.Worker, deadline.UnixMilli()-claim.Claimed)
		case d > bound:
			t.Errorf("round %d: the job started %v after the frozen worker's lease deadline, want within %v", i+1, d, bound)
		}
		// Resume it once its handler's sleep has passed (so it returns at
		// once and acks) and while the new owner still runs the job.
		time.Sleep(time.Until(first.at().Add(sleep + 300*time.Millisecond)))
		if running(r.ledgers(), next.Worker) == 0 {
			t.Fatalf("round %d: the new owner %s no longer runs the job when the frozen worker wakes", i+1, next.Worker)
		}
		x.signal(t, syscall.SIGCONT)
		late := waitLate(t, r, x.id, info.ID, first.Token)
		t.Logf("round %d: %s resumed; its late calls: %s", i+1, x.id, late)
		waitAcked(t, r, info.ID)
		acks := 0
		for _, e := range r.ledgers() {
			if e.Ev == "fin" && e.ID == info.ID && e.Err == "" && e.Outcome == hopper.OutcomeAck.String() {
				acks++
				if e.Worker != next.Worker || e.Token != next.Token {
					t.Errorf("round %d: job %s acked by %s (token %d), want its new owner %s (token %d)", i+1, info.ID, e.Worker, e.Token, next.Worker, next.Token)
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
		w.stop(t)
	}
	r.check(1)
}

// waitStart waits for a start of job id with a token above after, and
// returns the first.
func waitStart(t *testing.T, r *run, id string, after uint64) event {
	t.Helper()
	var got event
	testutil.Eventually(t, 20*time.Second, func() error {
		for _, e := range r.ledgers() {
			if e.Ev == "start" && e.ID == id && e.Token > after {
				got = e
				return nil
			}
		}
		return fmt.Errorf("job %s not started (token above %d) yet", id, after)
	})
	return got
}

// claimOf returns the claim of job id with token.
func claimOf(t *testing.T, r *run, id string, token uint64) event {
	t.Helper()
	for _, e := range r.ledgers() {
		if e.Ev == "claim" && e.ID == id && e.Token == token {
			return e
		}
	}
	t.Fatalf("no claim of job %s with token %d in the ledger", id, token)
	return event{}
}

// waitAcked waits until job id has a successful ack in the ledger.
func waitAcked(t *testing.T, r *run, id string) {
	t.Helper()
	testutil.Eventually(t, 20*time.Second, func() error {
		for _, e := range r.ledgers() {
			if e.Ev == "fin" && e.ID == id && e.Err == "" && e.Outcome == hopper.OutcomeAck.String() {
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
	testutil.Eventually(t, 20*time.Second, func() error {
		var acked, extended bool
		summary = ""
		for _, e := range r.ledgers() {
			if e.Worker != worker || e.ID != id || e.Token != token || (e.Ev != "fin" && e.Ev != "ext") {
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
