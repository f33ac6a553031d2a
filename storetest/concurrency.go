package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func concurrencyCases() []engineCase {
	return []engineCase{
		{name: "MixedStress", fn: testMixedStress},
	}
}

func adminConcurrencyCases() []adminCase {
	return []adminCase{
		{name: "MixedStressCounts", fn: testMixedStressCounts},
	}
}

// Parameters of the mixed stress test.
const (
	stressProducers = 4
	stressPerProd   = 600
	stressBatch     = 20
	stressConsumers = 6
	stressLease     = time.Second
	stressTimeout   = 90 * time.Second
	// stressRetries is the jobs' MaxRetries: enough that a job whose
	// leases expire again and again (a machine that stalls) is still
	// retried, so that only the consumers send jobs to garbage.
	stressRetries = 20
)

// stressFate is what consumers do with job number n on its given attempt:
// n%13 == 0 goes to garbage; n%10 == 0 kills its worker on the first
// attempt; n%7 == 0 fails its first two attempts; n%11 == 0 is snoozed once
// and n%17 == 0 released once; everything else is acked.
func stressFate(n, attempt int, snoozed, released bool) store.Outcome {
	switch {
	case n%10 == 0 && attempt == 1:
		return 0 // the worker dies
	case n%13 == 0:
		return store.OutcomeGarbage
	case n%7 == 0 && attempt <= 2:
		return store.OutcomeRetry
	case n%11 == 0 && !snoozed:
		return store.OutcomeSnooze
	case n%17 == 0 && !released:
		return store.OutcomeRelease
	}
	return store.OutcomeAck
}

// stressLedger is what the consumers did, shared between them.
type stressLedger struct {
	mu       sync.Mutex
	acks     map[string]int
	garbage  map[string]int // moved to garbage by a consumer
	snoozed  map[string]bool
	released map[string]bool
	lost     int
}

// ended returns how many jobs a consumer acked or moved to garbage.
func (led *stressLedger) ended() int {
	led.mu.Lock()
	defer led.mu.Unlock()
	return len(led.acks) + len(led.garbage)
}

// runStress runs producers, consumers and a scheduler on q until every job
// was acked or moved to garbage, then stops them and checks that each job
// ended exactly once, as its fate says. It returns what the consumers did.
func runStress(t *testing.T, s store.Store, q string) *stressLedger {
	t.Helper()
	const total = stressProducers * stressPerProd
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	led := &stressLedger{acks: map[string]int{}, garbage: map[string]int{}, snoozed: map[string]bool{}, released: map[string]bool{}}

	wg.Go(func() { stressScheduler(ctx, t, s, q) })
	for c := range stressConsumers {
		wg.Go(func() { stressConsumer(ctx, t, s, q, c, led) })
	}
	var producers sync.WaitGroup
	for p := range stressProducers {
		producers.Go(func() { stressProducer(ctx, t, s, q, p) })
	}
	producers.Wait()
	if t.Failed() {
		t.FailNow()
	}
	testutil.Eventually(t, stressTimeout, func() error {
		if t.Failed() {
			t.FailNow()
		}
		if n := led.ended(); n < total {
			return fmt.Errorf("consumers acked or moved to garbage %d of %d jobs, want all", n, total)
		}
		return nil
	})
	cancel()
	wg.Wait()
	for n := range total {
		id := stressID(n)
		acks, garbage := led.acks[id], led.garbage[id]
		switch {
		case acks > 1:
			t.Errorf("job %s was acked %d times, want once", id, acks)
		case garbage > 1:
			t.Errorf("job %s was moved to garbage %d times, want once", id, garbage)
		case acks == 1 && garbage == 1:
			t.Errorf("job %s was acked and moved to garbage", id)
		case n%13 == 0 && garbage != 1:
			t.Errorf("job %s, which consumers always send to garbage, was not moved there", id)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d jobs: %d acked, %d in garbage, %d stale finishes", total, len(led.acks), len(led.garbage), led.lost)
	return led
}

func testMixedStress(t *testing.T, s store.Store) {
	q := newQueue(t)
	led := runStress(t, s, q)
	claimNone(t, s, q, "every job was acked or moved to garbage")
	requireIdle(t, s, q, "every job was acked (deleted) or moved to garbage")
	// Each ID is held by a job in garbage and free once acked.
	var probes []*store.NewJob
	for n := range stressProducers * stressPerProd {
		probes = append(probes, probe(q, stressID(n)))
	}
	for off := 0; off < len(probes); off += 500 {
		batch := probes[off:min(off+500, len(probes))]
		for i, r := range enqueue(t, s, batch...) {
			id := batch[i].ID
			if dead := led.garbage[id] == 1; r.Duplicate != dead || r.ID != id {
				t.Fatalf("Enqueue of ID %s after the stress run (moved to garbage: %v): got %+v, want Duplicate %v", id, dead, r, dead)
			}
		}
	}
}

func testMixedStressCounts(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	led := runStress(t, s, q)
	requireCounts(t, a, q, store.StateCounts{Garbage: int64(len(led.garbage))})
	listed := map[string]bool{}
	for off := 0; ; off += 500 {
		p := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateGarbage, Offset: off, Limit: 500})
		for _, j := range p.Jobs {
			listed[j.ID] = true
		}
		if len(p.Jobs) < 500 {
			break
		}
	}
	for id := range led.garbage {
		if !listed[id] {
			t.Errorf("job %s, moved to garbage, is not listed in garbage", id)
		}
	}
	if len(listed) != len(led.garbage) {
		t.Fatalf("ListJobs(garbage) lists %d jobs, want the %d moved there", len(listed), len(led.garbage))
	}
}

func stressID(n int) string { return fmt.Sprintf("j%05d", n) }

func stressProducer(ctx context.Context, t *testing.T, s store.Store, q string, p int) {
	for b := 0; b < stressPerProd; b += stressBatch {
		var jobs []*store.NewJob
		for i := b; i < b+stressBatch; i++ {
			n := p*stressPerProd + i
			j := withRetries(q, stressID(n), stressRetries)
			if n%5 == 0 {
				j.Delay = time.Duration(n%30) * time.Millisecond
			}
			jobs = append(jobs, j)
		}
		res, err := s.Enqueue(ctx, jobs)
		if err != nil {
			t.Errorf("producer %d: Enqueue: unexpected error: %v", p, err)
			return
		}
		for i, r := range res {
			if r.Duplicate || r.ID != jobs[i].ID {
				t.Errorf("producer %d: Enqueue of new job %s: got %+v, want it added", p, jobs[i].ID, r)
			}
		}
	}
}

func stressScheduler(ctx context.Context, t *testing.T, s store.Store, q string) {
	for ctx.Err() == nil {
		r, err := s.Maintain(ctx, q, store.MaintainOpts{Batch: 100})
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("scheduler: Maintain: unexpected error: %v", err)
			}
			return
		}
		if r.More {
			continue
		}
		wait := 50 * time.Millisecond
		if !r.Idle && r.NextIn >= 0 {
			wait = min(wait, r.NextIn+time.Millisecond)
		}
		if _, err := s.WaitSchedule(ctx, []string{q}, wait); err != nil && ctx.Err() == nil {
			t.Errorf("scheduler: WaitSchedule: unexpected error: %v", err)
			return
		}
	}
}

func stressConsumer(ctx context.Context, t *testing.T, s store.Store, q string, c int, led *stressLedger) {
	for ctx.Err() == nil {
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 8, Lease: stressLease, WorkerID: fmt.Sprint("consumer", c)})
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("consumer %d: Claim: unexpected error: %v", c, err)
			}
			return
		}
		if len(res.Jobs) == 0 {
			if _, err := s.WaitReady(ctx, []string{q}, 50*time.Millisecond); err != nil && ctx.Err() == nil {
				t.Errorf("consumer %d: WaitReady: unexpected error: %v", c, err)
				return
			}
			continue
		}
		var reqs []store.AttemptEnd
		led.mu.Lock()
		for _, j := range res.Jobs {
			n, _ := strconv.Atoi(j.ID[1:])
			o := stressFate(n, j.Attempt, led.snoozed[j.ID], led.released[j.ID])
			switch o {
			case 0:
				continue
			case store.OutcomeSnooze:
				led.snoozed[j.ID] = true
			case store.OutcomeRelease:
				led.released[j.ID] = true
			}
			r := failed(j, o, "stress failure", time.Duration(n%10)*time.Millisecond)
			if o == store.OutcomeAck || o == store.OutcomeSnooze || o == store.OutcomeRelease {
				r.Error = nil
			}
			reqs = append(reqs, r)
		}
		led.mu.Unlock()
		if len(reqs) == 0 {
			continue
		}
		errs, err := s.Finish(ctx, reqs)
		if err != nil || len(errs) != len(reqs) {
			if ctx.Err() == nil {
				t.Errorf("consumer %d: Finish(%d): got %d results, error %v", c, len(reqs), len(errs), err)
			}
			return
		}
		led.mu.Lock()
		for i, err := range errs {
			switch {
			case err == nil && reqs[i].Outcome == store.OutcomeAck:
				led.acks[reqs[i].ID]++
			case err == nil && reqs[i].Outcome == store.OutcomeGarbage:
				led.garbage[reqs[i].ID]++
			case errors.Is(err, store.ErrLeaseLost):
				led.lost++
			case err != nil:
				t.Errorf("consumer %d: Finish %s of %s: unexpected error %v", c, reqs[i].Outcome, reqs[i].ID, err)
			}
		}
		led.mu.Unlock()
	}
}
