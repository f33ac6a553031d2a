package store

import (
	"context"
	"fmt"
)

// Searcher is implemented by stores that can look for jobs of one state
// in the store itself, examining a bounded stretch of the state per call
// from a position the caller keeps (a cursor), so that a search through a
// million jobs is many short calls rather than one long one or a read of
// every job. hopper.Inspector.SearchJobs uses it when the store has it.
// Both of hopper's stores implement it, with the kind index
// (QueueConfig.KindIndex).
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type Searcher interface {
	// SearchJobs examines up to req.Examine jobs from position req.From
	// of what req.Walk names, and returns those in req.State that may
	// match: their kind holds req.Kind, their stored form holds req.Text
	// (ASCII case aside) and their ID starts with req.IDPrefix. It is a
	// superset: the caller checks its own meaning (an exact kind, text in
	// the decoded args). It stops early once it has req.Limit candidates.
	// Jobs that move meanwhile may be missed or seen twice.
	SearchJobs(ctx context.Context, req SearchJobsOpts) (SearchPage, error)
}

// SearchWalk names what a search walks.
type SearchWalk int

const (
	// SearchWalkState (the zero value) walks the jobs of the state in the
	// order ListJobs lists them.
	SearchWalkState SearchWalk = iota
	// SearchWalkKind walks the queue's kind index for Kind: every job of
	// that kind in the queue, whatever its state, oldest enqueue first
	// (newest first with Newest), keeping those in State. A store answers
	// ErrNoKindIndex when the queue keeps no complete index.
	SearchWalkKind
	// SearchWalkShorter walks the kind index when the queue keeps a
	// complete one that holds fewer jobs than the state, and the state
	// otherwise. A caller uses it to start a search (From 0) and goes on
	// with the walk the page reports.
	SearchWalkShorter
)

// SearchJobsOpts asks Searcher.SearchJobs for candidates.
type SearchJobsOpts struct {
	Queue  string
	State  JobState
	Newest bool // examine from the latest, as ListJobsOpts.Newest
	// Kind, Text and IDPrefix narrow the candidates; empty ones do not.
	Kind, Text, IDPrefix string
	// Walk says what From, Examine and SearchPage.Total count: the jobs
	// of the state (the zero value) or of the kind index. SearchWalkKind
	// needs a Kind.
	Walk SearchWalk
	// From is the position to examine from (0 for the first job).
	From int
	// Examine bounds the jobs examined; Limit the candidates returned.
	// With Examine 0 a call examines nothing and reports the walk's
	// Total; with Limit 0 it returns no candidate.
	Examine, Limit int
}

// Validate returns an error wrapping ErrInvalidQueue, ErrInvalidState or
// ErrInvalidConfig when the queue is invalid, the state is not one of
// States, the walk is not one of the SearchWalk values or is
// SearchWalkKind without a Kind, or From, Examine or Limit is negative. A
// store refuses what Validate refuses, before it reads anything.
func (r *SearchJobsOpts) Validate() error {
	if err := ValidateQueue(r.Queue); err != nil {
		return err
	}
	if _, err := ParseState(string(r.State)); err != nil {
		return err
	}
	switch {
	case r.Walk < SearchWalkState || r.Walk > SearchWalkShorter:
		return fmt.Errorf("%w: SearchJobsOpts.Walk %d is not a SearchWalk", ErrInvalidConfig, r.Walk)
	case r.Walk == SearchWalkKind && r.Kind == "":
		return fmt.Errorf("%w: SearchJobsOpts.Walk SearchWalkKind needs a Kind", ErrInvalidConfig)
	}
	if r.From < 0 || r.Examine < 0 || r.Limit < 0 {
		return fmt.Errorf("%w: SearchJobsOpts From %d, Examine %d and Limit %d must not be negative",
			ErrInvalidConfig, r.From, r.Examine, r.Limit)
	}
	return nil
}

// SearchPage is what one SearchJobs call found.
type SearchPage struct {
	// Jobs are the candidates, in the walk's order.
	Jobs []*JobRecord
	// Total is the number of jobs walked over: in the state, or in the
	// kind index (every job of the kind in the queue).
	Total int
	// Examined is how many jobs from From the call looked at: the next
	// call starts at From+Examined.
	Examined int
	// Walk is what the call walked: SearchWalkState or SearchWalkKind.
	Walk SearchWalk
}
