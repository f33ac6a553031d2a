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

func concurrencyCases() []testCase {
	return []testCase{
		{name: "MixedStress", fn: testMixedStress},
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
	snoozed  map[string]bool
	released map[string]bool
	lost     int
}

func testMixedStress(t *testing.T, s store.Store) {
	q := newQueue(t)
	const total = stressProducers * stressPerProd
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	led := &stressLedger{acks: map[string]int{}, snoozed: map[string]bool{}, released: map[string]bool{}}

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
		return
	}

	// Once producers are done, no job is pending, ready, running or waiting
	// to retry only when every job was acked or moved to garbage.
	testutil.Eventually(t, stressTimeout, func() error {
		if t.Failed() {
			t.FailNow()
		}
		if c := stats(t, s, q).Counts; c.Pending+c.Ready+c.Unack+c.Retry != 0 {
			return fmt.Errorf("counts %+v; want every job acked or in garbage, nothing else left", c)
		}
		return nil
	})
	// A consumer may not have recorded its last successful ack yet: give
	// it a moment before stopping the consumers, so that a store that
	// cancels a call whose write went through does not fail the checks.
	testutil.Poll(5*time.Second, func() bool {
		led.mu.Lock()
		acked := len(led.acks)
		led.mu.Unlock()
		return acked+int(stats(t, s, q).Counts.Garbage) >= total
	})
	cancel()
	wg.Wait()

	garbage := map[string]bool{}
	for off := 0; ; off += 500 {
		p := list(t, s, store.ListRequest{Queue: q, State: store.StateGarbage, Offset: off, Limit: 500})
		for _, j := range p.Jobs {
			garbage[j.ID] = true
		}
		if len(p.Jobs) < 500 {
			break
		}
	}
	for n := range total {
		id := stressID(n)
		acks := led.acks[id]
		switch {
		case acks > 1:
			t.Errorf("job %s was acked %d times, want once", id, acks)
		case acks == 1 && garbage[id]:
			t.Errorf("job %s was acked and is also in garbage", id)
		case acks == 0 && !garbage[id]:
			t.Errorf("job %s was neither acked nor moved to garbage", id)
		case n%13 == 0 && !garbage[id]:
			t.Errorf("job %s, which consumers always send to garbage, is not in garbage", id)
		case garbage[id] && n%13 != 0:
			t.Logf("job %s reached garbage through expired leases (the machine stalled for over %v)", id, stressLease)
		}
	}
	requireCounts(t, s, q, store.StateCounts{Garbage: int64(len(garbage))})
	t.Logf("%d jobs: %d acked, %d in garbage, %d stale finishes", total, len(led.acks), len(garbage), led.lost)
}

func stressID(n int) string { return fmt.Sprintf("j%05d", n) }

func stressProducer(ctx context.Context, t *testing.T, s store.Store, q string, p int) {
	for b := 0; b < stressPerProd; b += stressBatch {
		var jobs []*store.NewJob
		for i := b; i < b+stressBatch; i++ {
			n := p*stressPerProd + i
			j := withRetries(q, stressID(n), 2)
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
		r, err := s.Maintain(ctx, q, store.MaintainOptions{Batch: 100})
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
		if err := s.WaitSchedule(ctx, []string{q}, wait); err != nil && ctx.Err() == nil {
			t.Errorf("scheduler: WaitSchedule: unexpected error: %v", err)
			return
		}
	}
}

func stressConsumer(ctx context.Context, t *testing.T, s store.Store, q string, c int, led *stressLedger) {
	for ctx.Err() == nil {
		res, err := s.Claim(ctx, store.ClaimRequest{Queue: q, Max: 8, Lease: stressLease, WorkerID: fmt.Sprint("consumer", c)})
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("consumer %d: Claim: unexpected error: %v", c, err)
			}
			return
		}
		if len(res.Jobs) == 0 {
			if err := s.WaitReady(ctx, []string{q}, 50*time.Millisecond); err != nil && ctx.Err() == nil {
				t.Errorf("consumer %d: WaitReady: unexpected error: %v", c, err)
				return
			}
			continue
		}
		var reqs []store.FinishRequest
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
			case errors.Is(err, store.ErrLeaseLost):
				led.lost++
			case err != nil:
				t.Errorf("consumer %d: Finish %s of %s: unexpected error %v", c, reqs[i].Outcome, reqs[i].ID, err)
			}
		}
		led.mu.Unlock()
	}
}
