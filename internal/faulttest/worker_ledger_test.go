package faulttest

import (
	"context"
	"errors"
	"fmt"
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
// handler, and tick.
type ledgerStore struct {
	hopper.Store
	c *proctest.Child
}

func (s *ledgerStore) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	for _, j := range res.Jobs {
		s.c.Emit(proctest.Event{Ev: "claim", Queue: j.Queue, Job: j.ID, Attempt: j.Attempt, Token: j.Token,
			AttemptedAt: j.AttemptedAt, Deadline: j.Deadline, RunAt: j.RunAt})
	}
	return res, err
}

func (s *ledgerStore) Finish(ctx context.Context, reqs []store.AttemptEnd) ([]error, error) {
	// The intent first: a worker killed after Redis applied the call but
	// before it reported the result leaves this line behind.
	for _, r := range reqs {
		s.c.Emit(proctest.Event{Ev: "try", Queue: r.Queue, Job: r.ID, Token: r.Token, Outcome: r.Outcome.String()})
	}
	errs, err := s.Store.Finish(ctx, reqs)
	for i, r := range reqs {
		e := err
		if e == nil && i < len(errs) {
			e = errs[i]
		}
		s.c.Emit(proctest.Event{Ev: "fin", Queue: r.Queue, Job: r.ID, Token: r.Token, Outcome: r.Outcome.String(), Err: errText(e)})
	}
	return errs, err
}

func (s *ledgerStore) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	st, err := s.Store.Extend(ctx, refs, lease)
	switch {
	case err != nil:
		s.c.Emit(proctest.Event{Ev: "extfail", Err: errText(err)})
	case len(st) != len(refs):
		s.c.Emit(proctest.Event{Ev: "extfail", Err: fmt.Sprintf("%d lease statuses for %d leases", len(st), len(refs))})
	default:
		for i, r := range refs {
			switch {
			case st[i].Err != nil:
				// Not checked (its shard failed): the worker keeps the
				// job; not a refusal.
				s.c.Emit(proctest.Event{Ev: "exterr", Queue: r.Queue, Job: r.ID, Token: r.Token, Err: errText(st[i].Err)})
			case !st[i].Held:
				s.c.Emit(proctest.Event{Ev: "ext", Queue: r.Queue, Job: r.ID, Token: r.Token, Err: hopper.ErrLeaseLost.Error()})
			default:
				s.c.Emit(proctest.Event{Ev: "renew", Queue: r.Queue, Job: r.ID, Token: r.Token, Deadline: st[i].Deadline})
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
