package hopper

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper/store"
)

// PreparedJob is a job encoded and resolved exactly as Enqueue would store
// it, with its ID fixed, that is kept somewhere first and stored later: in
// a transactional outbox (package outbox), a file, another queue. Prepare
// makes one; MarshalBinary and UnmarshalBinary carry it across; the
// Client's EnqueuePrepared stores it.
//
// Because the ID is fixed when the job is prepared, storing the same
// prepared job again while the first copy is in the store adds nothing: the
// store reports a duplicate (JobInfo.Duplicate). A job that already
// finished and left the store is added again, unless it is still kept for
// its Retention.
//
// The zero value is an empty job, only good as the target of
// UnmarshalBinary. A PreparedJob may be read, marshalled and enqueued from
// several goroutines at once; changing its Meta needs exclusive access.
type PreparedJob struct {
	job store.NewJob
}

// Prepare encodes args and resolves opts as Enqueue does (the args' own
// options, then opts, then the Client's defaults, with the same checks and
// errors), without touching the store. Two things are fixed now rather
// than when the job is stored: the ID (opts.ID, or a new time-ordered ID)
// and the due time: a Delay becomes RunAt = now + Delay on this process's
// clock (RunAt, when given, wins as with Enqueue). A job with neither runs
// as soon as it is stored. Meta is copied, so later changes to opts.Meta do
// not reach the job.
func Prepare[T Args](c *Client, args T, opts *EnqueueOpts) (*PreparedJob, error) {
	return c.prepare(args, opts, time.Now())
}

// PrepareMany is Prepare for many jobs of one type with the same options,
// each with an ID of its own. Like EnqueueMany it refuses opts.ID for more
// than one job; one invalid job fails the call, naming its index.
func PrepareMany[T Args](c *Client, args []T, opts *EnqueueOpts) ([]*PreparedJob, error) {
	if opts != nil && opts.ID != "" && len(args) > 1 {
		return nil, fmt.Errorf("%w: EnqueueOpts.ID given for %d jobs; IDs must be unique", ErrInvalidJob, len(args))
	}
	now := time.Now()
	out := make([]*PreparedJob, len(args))
	for i, a := range args {
		p, err := c.prepare(a, opts, now)
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}

func (c *Client) prepare(args Args, opts *EnqueueOpts, now time.Time) (*PreparedJob, error) {
	j, err := c.newJob(args, opts, now)
	if err != nil {
		return nil, err
	}
	if j.RunAt.IsZero() && j.Delay > 0 {
		j.RunAt = now.Add(j.Delay)
	}
	j.Delay = 0
	if j.Meta == nil {
		j.Meta = map[string]string{}
	}
	return &PreparedJob{job: *j}, nil
}

// ID is the job's ID, fixed when it was prepared.
func (p *PreparedJob) ID() string { return p.job.ID }

// Queue is the queue the job goes to.
func (p *PreparedJob) Queue() string { return p.job.Queue }

// Kind is the job's kind (its Args' Kind).
func (p *PreparedJob) Kind() string { return p.job.Kind }

// RunAt is when the job falls due; zero means as soon as it is stored.
func (p *PreparedJob) RunAt() time.Time { return p.job.RunAt }

// Meta is the job's metadata: the map itself, never nil for a prepared
// job, so that a caller may add keys (trace context, with a propagator and
// middleware.MetaCarrier) before the job is marshalled or enqueued. Keys
// set this way replace any the options gave.
func (p *PreparedJob) Meta() map[string]string {
	if p.job.Meta == nil {
		p.job.Meta = map[string]string{}
	}
	return p.job.Meta
}

// Validate checks the job as a store will: nil, or an error wrapping
// ErrInvalidJob or ErrInvalidQueue that names the field. A job from Prepare
// is valid; one from UnmarshalBinary may not be (bytes written by other
// software, or limits changed since).
func (p *PreparedJob) Validate() error { return p.job.Validate() }

// EnqueuePrepared stores prepared jobs with their fixed IDs and due times
// in one Store call, through the client's middleware, and returns one
// JobInfo per job in order, as EnqueueMany does: a job whose ID (or unique
// key) is held reports Duplicate, and when a store step fails after others
// were stored the failed jobs carry Err and the call returns an error
// saying how many: enqueue those again, which is safe. Every job is
// validated first: one invalid job fails the call with an error wrapping
// ErrInvalidJob or ErrInvalidQueue that names its index, and none is
// stored. The Client's MaxArgsBytes is not applied again (the client that
// prepared the job applied its own). The jobs are not changed, so they may
// be enqueued again.
func (c *Client) EnqueuePrepared(ctx context.Context, jobs []*PreparedJob) ([]*JobInfo, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	batch := make([]*store.NewJob, len(jobs))
	for i, p := range jobs {
		if p == nil {
			return nil, fmt.Errorf("%w: job %d is nil", ErrInvalidJob, i)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("job %d (ID %q): %w", i, p.job.ID, err)
		}
		j := p.job // a copy: middleware may replace its Meta
		if len(j.Meta) == 0 {
			j.Meta = nil
		}
		batch[i] = &j
	}
	res, err := c.EnqueueJobs(ctx, batch)
	if err != nil {
		return nil, err
	}
	infos := make([]*JobInfo, len(batch))
	var firstErr error
	failed := 0
	for i, j := range batch {
		infos[i] = jobInfo(j, res[i])
		if res[i].Err != nil {
			failed++
			if firstErr == nil {
				firstErr = res[i].Err
			}
		}
	}
	if failed > 0 {
		return infos, fmt.Errorf("hopper: enqueue: %d of %d jobs not stored (their JobInfo.Err says why): %w", failed, len(batch), firstErr)
	}
	return infos, nil
}
