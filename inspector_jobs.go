package hopper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hopperq/hopper/store"
)

// Bounds of Inspector.ListJobs.
const (
	// DefaultListLimit is ListJobsOpts.Limit when zero.
	DefaultListLimit = 50
	// MaxListLimit is the largest Limit ListJobs and SearchJobs take; a
	// larger one fails with ErrInvalidConfig.
	MaxListLimit = 1000
	// DefaultScanLimit is ListJobsOpts.ScanLimit when zero.
	DefaultScanLimit = 10_000
	// scanChunk is how many jobs a filtered listing reads per store call.
	scanChunk = 200
)

// ListJobsOpts asks Inspector.ListJobs for a page of one state of one queue.
//
// Order: pending and retry by due time, ready first in first out, unack by
// lease deadline, garbage and done by finish time; Newest reverses it.
type ListJobsOpts struct {
	// Queue and State to list. Required.
	Queue string
	State JobState
	// Offset skips that many jobs (or matches, when filtering). At least 0.
	Offset int
	// Limit caps the page. Zero means DefaultListLimit (50); at most
	// MaxListLimit (1000): a larger Limit fails with ErrInvalidConfig (page
	// on with Offset).
	Limit int
	// Newest lists the latest first.
	Newest bool
	// Kind, when set, keeps only jobs of that kind.
	Kind string
	// Match, when set, keeps only jobs it returns true for. It runs in the
	// calling goroutine on records the Inspector owns.
	Match func(*JobRecord) bool
	// ScanLimit bounds how many jobs a filtered listing examines. Zero means
	// DefaultScanLimit (10,000).
	ScanLimit int
}

// JobPage is one page of ListJobs.
type JobPage struct {
	// Jobs on the page, in the listing's order.
	Jobs []*JobRecord
	// Total is the number of jobs in the state, or with a filter the number
	// of matches among the jobs examined.
	Total int
	// Truncated reports that a filtered listing stopped at ScanLimit while
	// the state held more.
	Truncated bool
}

// validQueueState checks the queue and state a listing or a search names;
// opts names its options ("ListJobsOpts").
func validQueueState(opts, queue string, st JobState) error {
	if err := store.ValidateQueue(queue); err != nil {
		return err
	}
	return checkState(opts, st)
}

// checkState returns nil for a valid state, or an error wrapping
// ErrInvalidState that lists the valid ones and names opts.State when it
// is empty.
func checkState(opts string, st JobState) error {
	if st.Valid() {
		return nil
	}
	names := make([]string, len(store.States))
	for k, s := range store.States {
		names[k] = string(s)
	}
	valid := strings.Join(names, ", ")
	if st == "" {
		return fmt.Errorf("%w: %s.State is required: one of %s", ErrInvalidState, opts, valid)
	}
	return fmt.Errorf("%w: %q (want one of %s)", ErrInvalidState, st, valid)
}

// checkPageLimit refuses a Limit above MaxListLimit, naming opts and
// saying how to read on (onward).
func checkPageLimit(opts string, limit int, onward string) error {
	if limit > MaxListLimit {
		return fmt.Errorf("%w: %s.Limit %d is above MaxListLimit (%d): %s", ErrInvalidConfig, opts, limit, MaxListLimit, onward)
	}
	return nil
}

// normalize checks req and applies its defaults.
func (req ListJobsOpts) normalize() (ListJobsOpts, error) {
	if err := validQueueState("ListJobsOpts", req.Queue, req.State); err != nil {
		return req, err
	}
	if req.Offset < 0 || req.Limit < 0 || req.ScanLimit < 0 {
		return req, fmt.Errorf("%w: ListJobsOpts Offset %d, Limit %d and ScanLimit %d must not be negative",
			ErrInvalidConfig, req.Offset, req.Limit, req.ScanLimit)
	}
	if err := checkPageLimit("ListJobsOpts", req.Limit, "read further pages with Offset"); err != nil {
		return req, err
	}
	if req.Limit == 0 {
		req.Limit = DefaultListLimit
	}
	if req.ScanLimit == 0 {
		req.ScanLimit = DefaultScanLimit
	}
	return req, nil
}

// ListJobs returns a page of one queue's jobs in one state. Unfiltered, the
// page is one read of the store and Total counts the state. With Kind or
// Match, the listing examines up to ScanLimit jobs in order, a chunk per
// store call (so jobs that move meanwhile may be missed or seen twice),
// Offset and Limit apply to the matches, and Truncated says the state held
// more. To look through a state of any size, use SearchJobs, which goes on
// from a cursor a bounded stretch per call.
func (i *Inspector) ListJobs(ctx context.Context, req ListJobsOpts) (JobPage, error) {
	if err := i.made(); err != nil {
		return JobPage{}, err
	}
	a, err := i.adminFor("listing jobs")
	if err != nil {
		return JobPage{}, err
	}
	req, err = req.normalize()
	if err != nil {
		return JobPage{}, err
	}
	rng := store.ListJobsOpts{Queue: req.Queue, State: req.State, Offset: req.Offset, Limit: req.Limit, Newest: req.Newest}
	if req.Kind == "" && req.Match == nil {
		p, err := a.ListJobs(ctx, rng)
		return JobPage{Jobs: p.Jobs, Total: p.Total}, err
	}
	page := JobPage{Jobs: []*JobRecord{}}
	for examined := 0; examined < req.ScanLimit; {
		rng.Offset, rng.Limit = examined, min(scanChunk, req.ScanLimit-examined)
		p, err := a.ListJobs(ctx, rng)
		if err != nil {
			return JobPage{}, err
		}
		for _, r := range p.Jobs {
			examined++
			if (req.Kind != "" && r.Kind != req.Kind) || (req.Match != nil && !req.Match(r)) {
				continue
			}
			if page.Total >= req.Offset && len(page.Jobs) < req.Limit {
				page.Jobs = append(page.Jobs, r)
			}
			page.Total++
		}
		if len(p.Jobs) < rng.Limit {
			break
		}
		page.Truncated = examined >= req.ScanLimit && p.Total > examined
	}
	return page, nil
}

// GetJob returns one job with its error history, in whatever state it is,
// or an error wrapping ErrJobNotFound.
func (i *Inspector) GetJob(ctx context.Context, queue, id string) (*JobRecord, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	a, err := i.adminFor("reading jobs")
	if err != nil {
		return nil, err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if store.ValidateID(id) != nil {
		return nil, fmt.Errorf("%w: %q is not a valid job ID", ErrJobNotFound, id)
	}
	return a.GetJob(ctx, queue, id)
}

// FindJob looks for a job ID in every queue and returns the first match,
// in queue order, or an error wrapping ErrJobNotFound. IDs are unique per
// queue, not across queues; generated IDs never collide.
func (i *Inspector) FindJob(ctx context.Context, id string) (*JobRecord, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	queues, err := i.ListQueues(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range queues {
		rec, err := i.GetJob(ctx, q, id)
		if err == nil || !errors.Is(err, ErrJobNotFound) {
			return rec, err
		}
	}
	return nil, fmt.Errorf("%w: no queue holds %q", ErrJobNotFound, id)
}

// RequeueJobs moves jobs of queue in state from (pending, retry, garbage or
// done) to the back of ready, due now, keeping their attempts and errors; a
// requeued job is no longer marked cancelled and loses its result. With ids
// nil it moves every job in from; otherwise IDs not in from are skipped. It
// returns how many moved.
func (i *Inspector) RequeueJobs(ctx context.Context, queue string, from JobState, ids []string) (int, error) {
	if err := i.made(); err != nil {
		return 0, err
	}
	a, err := i.adminFor("requeue")
	if err != nil {
		return 0, err
	}
	if err := store.ValidateRequeue(queue, from); err != nil {
		return 0, err
	}
	ids, ok, err := checkTargets(queue, ids)
	if !ok {
		return 0, err
	}
	return a.RequeueJobs(ctx, queue, from, ids)
}

// DeleteJobs removes jobs of queue in state from, any state but unack (a
// running job is cancelled, not deleted), releasing their unique keys. With
// ids nil it removes every job in from; otherwise IDs not in from are
// skipped. It returns how many it removed.
func (i *Inspector) DeleteJobs(ctx context.Context, queue string, from JobState, ids []string) (int, error) {
	if err := i.made(); err != nil {
		return 0, err
	}
	a, err := i.adminFor("delete")
	if err != nil {
		return 0, err
	}
	if err := store.ValidateDelete(queue, from); err != nil {
		return 0, err
	}
	ids, ok, err := checkTargets(queue, ids)
	if !ok {
		return 0, err
	}
	return a.DeleteJobs(ctx, queue, from, ids)
}

// CancelJob stops a job and returns the state it was in. A job waiting in
// pending, ready or retry moves to garbage at once, marked cancelled, with
// its unique key released; a running job is flagged, and its worker cancels
// the handler's context (cause ErrCancelled) within about half a second and
// buries it cancelled, never retried. A job in garbage or done is left as
// it is. An unknown job gives an error wrapping ErrJobNotFound.
func (i *Inspector) CancelJob(ctx context.Context, queue, id string) (JobState, error) {
	if err := i.made(); err != nil {
		return "", err
	}
	a, err := i.adminFor("cancel")
	if err != nil {
		return "", err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return "", err
	}
	if store.ValidateID(id) != nil {
		return "", fmt.Errorf("%w: %q is not a valid job ID", ErrJobNotFound, id)
	}
	return a.CancelJob(ctx, queue, id)
}

// checkTargets checks the queue of a bulk action and drops IDs that cannot
// name a job. ok is false when there is nothing to do: an error, or a
// non-nil list with no valid ID.
func checkTargets(queue string, ids []string) (_ []string, ok bool, _ error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, false, err
	}
	if ids == nil {
		return nil, true, nil
	}
	valid := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return store.ValidateID(id) != nil })
	return valid, len(valid) > 0, nil
}
