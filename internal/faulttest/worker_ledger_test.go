package faulttest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/store"
)

// ledgerStore reports, around the real store, what a worker claimed and how
// its finish and lease-extend calls fared: the ledger's view of the
// lifecycle, kept outside Redis. Its events: claim, try (a finish sent),
// fin (its result), renew (a lease renewed, with its new deadline), ext (a
// renewal refused), exterr (a lease not checked), extfail (a renewal call
// that failed as a whole, or answered for fewer leases than asked: the
// worker renewed none of them); the worker adds start and end around its
// handler, and the ledger tick and blocked.
type ledgerStore struct {
	hopper.Store
	l *ledger
}

// Unwrap returns the real store, so that the worker finds its optional
// services (store.As) as a production worker does: the workflows'
// sweeper, the stored schedules. Without it the fault suite's workers ran
// none of them.
func (s *ledgerStore) Unwrap() store.Store { return s.Store }

// ledger writes a worker's events to the test (proctest.Child.Emit), each
// from the goroutine it is about, and notes the writes that waited for the
// pipe: a test binary that reads the pipe too slowly holds up every
// goroutine of the worker that reports, its lease renewals included, and
// the worker's leases may run out (run.check).
type ledger struct {
	c *proctest.Child
	// slow is when the first write that waited over blockedAfter began
	// since tick last looked (unix ns; 0 for none).
	slow atomic.Int64
}

// blockedAfter is how long a write may wait before the ledger notes it.
const blockedAfter = 100 * time.Millisecond

// emit writes e, setting e.At to now when it is zero.
func (l *ledger) emit(e proctest.Event) {
	start := time.Now()
	if e.At.IsZero() {
		e.At = start
	}
	l.c.Emit(e)
	if time.Since(start) > blockedAfter {
		l.slow.CompareAndSwap(0, start.UnixNano())
	}
}

// tickEvery is how often a worker reports a "tick": the gaps between its
// ticks are the times it stalled.
const tickEvery = 50 * time.Millisecond

// tick reports a "tick" every tickEvery until ctx is done, and after it a
// "blocked" event when a write waited over blockedAfter since the last
// tick, at the time that write began. A worker process that stops running
// (SIGSTOP, starved of CPU, a long GC pause) reports no tick meanwhile,
// nor does one whose pipe is full; and a pipe that drains too slowly,
// which lets a tick through now and then while the worker's other
// goroutines wait their turn, shows as blocked writes. The check credits
// a lease that ran out with no fault injected only to a worker that
// stalled so, or whose renewals failed (run.check).
func (l *ledger) tick(ctx context.Context) {
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		l.emit(proctest.Event{Ev: "tick"})
		if at := l.slow.Swap(0); at != 0 {
			l.emit(proctest.Event{Ev: "blocked", At: time.Unix(0, at)})
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *ledgerStore) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	for _, j := range res.Jobs {
		s.l.emit(proctest.Event{Ev: "claim", Queue: j.Queue, Job: j.ID, Attempt: j.Attempt, Token: j.Token,
			AttemptedAt: j.AttemptedAt, Deadline: j.Deadline, RunAt: j.RunAt})
	}
	return res, err
}

func (s *ledgerStore) Finish(ctx context.Context, reqs []store.AttemptEnd) ([]error, error) {
	// The intent first: a worker killed after Redis applied the call but
	// before it reported the result leaves this line behind.
	for _, r := range reqs {
		s.l.emit(proctest.Event{Ev: "try", Queue: r.Queue, Job: r.ID, Token: r.Token, Outcome: r.Outcome.String()})
	}
	errs, err := s.Store.Finish(ctx, reqs)
	for i, r := range reqs {
		e := err
		if e == nil && i < len(errs) {
			e = errs[i]
		}
		s.l.emit(proctest.Event{Ev: "fin", Queue: r.Queue, Job: r.ID, Token: r.Token, Outcome: r.Outcome.String(), Err: errText(e)})
	}
	return errs, err
}

func (s *ledgerStore) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	st, err := s.Store.Extend(ctx, refs, lease)
	switch {
	case err != nil:
		s.l.emit(proctest.Event{Ev: "extfail", Err: errText(err)})
	case len(st) != len(refs):
		s.l.emit(proctest.Event{Ev: "extfail", Err: fmt.Sprintf("%d lease statuses for %d leases", len(st), len(refs))})
	default:
		for i, r := range refs {
			switch {
			case st[i].Err != nil:
				// Not checked (its shard failed): the worker keeps the
				// job; not a refusal.
				s.l.emit(proctest.Event{Ev: "exterr", Queue: r.Queue, Job: r.ID, Token: r.Token, Err: errText(st[i].Err)})
			case !st[i].Held:
				s.l.emit(proctest.Event{Ev: "ext", Queue: r.Queue, Job: r.ID, Token: r.Token, Err: hopper.ErrLeaseLost.Error()})
			default:
				s.l.emit(proctest.Event{Ev: "renew", Queue: r.Queue, Job: r.ID, Token: r.Token, Deadline: st[i].Deadline})
			}
		}
	}
	return st, err
}

func errText(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, hopper.ErrLeaseLost):
		return hopper.ErrLeaseLost.Error()
	case errors.Is(err, hopper.ErrJobNotFound):
		return hopper.ErrJobNotFound.Error()
	}
	return err.Error()
}
