package hopper

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
)

// MaxAllQueuesDepth bounds how deep ListJobsAllQueues reads: Offset +
// Limit at most 1,000. Beyond it each queue's own listing (ListJobs) goes
// on.
const MaxAllQueuesDepth = MaxListLimit

// allQueuesConcurrency bounds the queues ListJobsAllQueues reads at once.
const allQueuesConcurrency = 8

// AllQueuesOpts asks ListJobsAllQueues for one page of the jobs in one
// state of every queue. The zero value lists nothing: State is required.
type AllQueuesOpts struct {
	// State to list, in every queue. Required.
	State JobState
	// Offset skips that many jobs (or matches) of the merged listing; at
	// least 0, and Offset + Limit at most MaxAllQueuesDepth.
	Offset int
	// Limit caps the page. Zero means DefaultListLimit (50).
	Limit int
	// Newest lists the latest first, as ListJobsOpts.Newest does.
	Newest bool
	// Kind and Match filter as in ListJobsOpts; ScanLimit bounds the jobs
	// examined per queue (zero: DefaultScanLimit).
	Kind      string
	Match     func(*JobRecord) bool
	ScanLimit int
}

// AllQueuesPage is one page of ListJobsAllQueues.
type AllQueuesPage struct {
	// Jobs on the page, every queue's merged in the state's order.
	Jobs []*JobRecord
	// Total is the number of jobs (or matches among the jobs examined) in
	// the state across queues.
	Total int
	// Queues counts them per queue, for the queues that have any, by name.
	Queues []QueueCount
	// Truncated reports that a filtered listing stopped at ScanLimit in
	// at least one queue while it held more.
	Truncated bool
}

// QueueCount is how many jobs (or matches) one queue holds in a state.
type QueueCount struct {
	Queue string `json:"queue"`
	Count int    `json:"count"`
}

// ListJobsAllQueues lists the jobs in one state of every queue, merged in
// the state's order (store.ListJobsOpts: retry by when each is due next,
// garbage and done by when each finished, ...; reversed by Newest), ties by
// queue name then ID. It is how an operator sees every retry or every dead
// job at once.
//
// It reads each queue's first Offset + Limit jobs (8 queues at a time) and
// merges them, so a deep page costs more than a shallow one, and
// Offset + Limit may not pass MaxAllQueuesDepth; a queue with none in the
// state costs one short read. Safe for concurrent use; the page is a
// snapshot that jobs may leave while it is read.
func (i *Inspector) ListJobsAllQueues(ctx context.Context, opts AllQueuesOpts) (AllQueuesPage, error) {
	if err := i.made(); err != nil {
		return AllQueuesPage{}, err
	}
	if _, err := i.adminFor("listing jobs"); err != nil {
		return AllQueuesPage{}, err
	}
	if err := checkState("AllQueuesOpts", opts.State); err != nil {
		return AllQueuesPage{}, err
	}
	if opts.Limit == 0 {
		opts.Limit = DefaultListLimit
	}
	if opts.Offset < 0 || opts.Limit < 0 || opts.ScanLimit < 0 || opts.Offset+opts.Limit > MaxAllQueuesDepth {
		return AllQueuesPage{}, fmt.Errorf("%w: AllQueuesOpts Offset %d, Limit %d, ScanLimit %d: none negative, Offset+Limit at most %d",
			ErrInvalidConfig, opts.Offset, opts.Limit, opts.ScanLimit, MaxAllQueuesDepth)
	}
	queues, err := i.ListQueues(ctx)
	if err != nil {
		return AllQueuesPage{}, err
	}
	pages := make([]JobPage, len(queues))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(allQueuesConcurrency)
	for n, q := range queues {
		g.Go(func() error {
			p, err := i.ListJobs(gctx, ListJobsOpts{
				Queue: q, State: opts.State, Limit: opts.Offset + opts.Limit, Newest: opts.Newest,
				Kind: opts.Kind, Match: opts.Match, ScanLimit: opts.ScanLimit,
			})
			pages[n] = p
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return AllQueuesPage{}, err
	}
	out := AllQueuesPage{Jobs: []*JobRecord{}}
	var all []*JobRecord
	for n, p := range pages {
		if p.Total > 0 {
			out.Queues = append(out.Queues, QueueCount{Queue: queues[n], Count: p.Total})
		}
		out.Total += p.Total
		out.Truncated = out.Truncated || p.Truncated
		all = append(all, p.Jobs...)
	}
	slices.SortFunc(out.Queues, func(a, b QueueCount) int { return cmp.Compare(a.Queue, b.Queue) })
	slices.SortStableFunc(all, func(a, b *JobRecord) int {
		c := stateTime(opts.State, a).Compare(stateTime(opts.State, b))
		if opts.Newest {
			c = -c
		}
		if c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Queue, b.Queue), cmp.Compare(a.ID, b.ID))
	})
	if opts.Offset < len(all) {
		out.Jobs = all[opts.Offset:min(len(all), opts.Offset+opts.Limit)]
	}
	return out, nil
}

// stateTime is the time a state orders its jobs by (store.ListJobsOpts).
func stateTime(st JobState, j *JobRecord) time.Time {
	switch st {
	case StatePending, StateRetry:
		return j.RunAt
	case StateUnack:
		return j.Deadline
	case StateGarbage, StateDone:
		return j.FinishedAt
	default:
		return j.EnqueuedAt
	}
}
