package hopper

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/hopperq/hopper/store"
)

// PreparedJob is a job encoded and resolved exactly as Enqueue would store
// it, with its ID fixed, that is kept somewhere first and stored later: in
// a transactional outbox (package outbox), a file, another queue. Prepare
// makes one; MarshalBinary and UnmarshalBinary carry it across;
// EnqueuePrepared stores it. It is also what enqueue middleware sees
// (EnqueueFunc): every job on its way through a Client.
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
	// args holds the bytes of args of up to inlineArgs bytes, which
	// job.Args then shares, written once (fillJob): one allocation for the
	// job where two were. (Not the ID: a kept ID, JobInfo.ID, would keep
	// the whole job.)
	args [inlineArgs]byte
}

// inlineArgs is the size of the args a PreparedJob holds in itself; longer
// args get an allocation of their own.
const inlineArgs = 128

// Prepare encodes args and resolves opts as Enqueue does (the args' own
// options, then opts, then the Client's defaults, with the same checks and
// errors), without touching the store. Two things are fixed now rather
// than when the job is stored: the ID (opts.ID, or a new time-ordered ID)
// and the due time: a Delay becomes RunAt = now + Delay on this process's
// clock (RunAt, when given, wins as with Enqueue). A job with neither runs
// as soon as it is stored. Meta is copied, so later changes to opts.Meta do
// not reach the job.
func Prepare[T Args](c *Client, args T, opts *EnqueueOpts) (*PreparedJob, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	return c.prepare(args, opts, time.Now())
}

// PrepareMany is Prepare for many jobs of one type with the same options,
// each with an ID of its own. Like EnqueueMany it refuses opts.ID for more
// than one job; one invalid job fails the call, naming its index.
func PrepareMany[T Args](c *Client, args []T, opts *EnqueueOpts) ([]*PreparedJob, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	if opts != nil && opts.ID != "" && len(args) > 1 {
		return nil, fmt.Errorf("%w: EnqueueOpts.ID given for %d jobs; IDs must be unique", ErrInvalidJob, len(args))
	}
	now := time.Now()
	out := make([]*PreparedJob, len(args))
	for i, a := range args {
		p, err := c.prepare(a, opts, now)
		if err != nil {
			return nil, errorAt(fmt.Sprintf("job %d", i), err)
		}
		out[i] = p
	}
	return out, nil
}

func (c *Client) prepare(args Args, opts *EnqueueOpts, now time.Time) (*PreparedJob, error) {
	p, err := c.newJob(args, opts, forEnqueue, now)
	if err != nil {
		return nil, err
	}
	j := &p.job
	if j.RunAt.IsZero() && j.Delay > 0 {
		j.RunAt = now.Add(j.Delay)
	}
	j.Delay = 0
	if j.Meta == nil {
		j.Meta = map[string]string{}
	}
	return p, nil
}

// ID is the job's ID, fixed when it was prepared.
func (p *PreparedJob) ID() string { return p.job.ID }

// Queue is the queue the job goes to.
func (p *PreparedJob) Queue() string { return p.job.Queue }

// Kind is the job's kind (its Args' Kind).
func (p *PreparedJob) Kind() string { return p.job.Kind }

// RunAt is when the job falls due; zero means as soon as it is stored
// (or Delay after).
func (p *PreparedJob) RunAt() time.Time { return p.job.RunAt }

// Delay is how long after it is stored the job falls due, by the store's
// clock, for a job on its way through Enqueue with EnqueueOpts.Delay (an
// enqueue middleware sees it); RunAt, when set, wins. Always zero for a
// job from Prepare, which fixed the delay into RunAt.
func (p *PreparedJob) Delay() time.Duration { return p.job.Delay }

// Args are the job's encoded args (msgpack), shared with the job: read
// them, do not change them.
func (p *PreparedJob) Args() []byte { return p.job.Args }

// Meta is the job's metadata: the map itself, never nil for a prepared
// job, so that a caller may add keys (trace context, with a propagator and
// middleware.MetaCarrier) before the job is marshalled or enqueued. Keys
// set this way replace any the options gave; an empty key, or a workflow
// task's keys (see EnqueueOpts.Meta), makes Validate and EnqueuePrepared
// refuse the job.
func (p *PreparedJob) Meta() map[string]string {
	if p.job.Meta == nil {
		p.job.Meta = map[string]string{}
	}
	return p.job.Meta
}

// Validate checks the job as EnqueuePrepared will: as a store does, and
// that its ID has no '~' (reserved for workflow tasks' job IDs, see
// EnqueueOpts.ID), its queue is not a partition's
// (store.ValidateEnqueueQueue) and its Meta has no empty key and no
// workflow task's key (see EnqueueOpts.Meta). It returns nil, or an error
// wrapping ErrInvalidJob or ErrInvalidQueue that names the field. A job from Prepare is valid; one
// from UnmarshalBinary may not be (bytes written by other software, or
// limits changed since).
func (p *PreparedJob) Validate() error {
	if err := p.job.Validate(); err != nil {
		return err
	}
	if err := checkMeta(p.job.Meta); err != nil {
		return err
	}
	if store.EnqueueIDNeedsCheck(p.job.ID) {
		return store.ValidateEnqueueID(p.job.ID)
	}
	if store.EnqueueQueueNeedsCheck(p.job.Queue) {
		return store.ValidateEnqueueQueue(p.job.Queue)
	}
	return nil
}

// EnqueuePrepared stores prepared jobs with their fixed IDs and due times
// in one Store call, through c's middleware, and returns one JobInfo per
// job in order, as EnqueueMany does: a job whose ID (or unique key) is
// held reports Duplicate, and when a store step fails after others were
// stored the failed jobs carry Err and the call returns an error saying
// how many: enqueue those again, which is safe. Every job is validated
// first: one invalid job fails the call with an error wrapping
// ErrInvalidJob or ErrInvalidQueue that names its index, and none is
// stored. The Client's MaxArgsBytes is not applied again (the client that
// prepared the job applied its own). The jobs are not changed (middleware
// works on copies), so they may be enqueued again.
func EnqueuePrepared(ctx context.Context, c *Client, jobs []*PreparedJob) ([]*JobInfo, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	batch := make([]*PreparedJob, len(jobs))
	copies := make([]PreparedJob, len(jobs))
	for i, p := range jobs {
		if p == nil {
			return nil, fmt.Errorf("%w: job %d is nil", ErrInvalidJob, i)
		}
		if err := p.Validate(); err != nil {
			return nil, errorAt(fmt.Sprintf("job %d (ID %q)", i, p.job.ID), err)
		}
		copies[i].job = p.job
		j := &copies[i].job
		if len(j.Meta) == 0 {
			j.Meta = nil
		} else {
			j.Meta = maps.Clone(j.Meta)
		}
		batch[i] = &copies[i]
	}
	return c.enqueueBatch(ctx, batch)
}
