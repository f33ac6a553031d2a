package main

import (
	"context"
	"errors"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// ledgerStore records, around the real store, what the worker claimed and
// how its finish and lease-extend calls fared: the ledger's view of the
// lifecycle, written outside Redis.
type ledgerStore struct {
	hopper.Store
	l *ledger
}

func (s *ledgerStore) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	for _, j := range res.Jobs {
		s.l.log(event{Ev: "claim", Queue: j.Queue, ID: j.ID, Attempt: j.Attempt, Token: j.Token,
			Claimed: ms(j.AttemptedAt), Deadline: ms(j.Deadline), RunAt: ms(j.RunAt)})
	}
	return res, err
}

func (s *ledgerStore) Finish(ctx context.Context, reqs []store.FinishRequest) ([]error, error) {
	// The intent first: a worker killed after Redis applied the call but
	// before it logged the result leaves this line behind.
	for _, r := range reqs {
		s.l.log(event{Ev: "try", Queue: r.Queue, ID: r.ID, Token: r.Token, Outcome: r.Outcome.String()})
	}
	errs, err := s.Store.Finish(ctx, reqs)
	for i, r := range reqs {
		e := err
		if e == nil && i < len(errs) {
			e = errs[i]
		}
		s.l.log(event{Ev: "fin", Queue: r.Queue, ID: r.ID, Token: r.Token, Outcome: r.Outcome.String(), Err: errText(e)})
	}
	return errs, err
}

func (s *ledgerStore) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	st, err := s.Store.Extend(ctx, refs, lease)
	if err == nil {
		for i, r := range refs {
			switch {
			case i >= len(st):
			case st[i].Err != nil:
				// Not checked (its shard failed): the worker keeps the
				// job; not a refusal.
				s.l.log(event{Ev: "exterr", Queue: r.Queue, ID: r.ID, Token: r.Token, Err: errText(st[i].Err)})
			case !st[i].Held:
				s.l.log(event{Ev: "ext", Queue: r.Queue, ID: r.ID, Token: r.Token, Err: hopper.ErrLeaseLost.Error()})
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
