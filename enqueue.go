package hopper

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/hopperq/hopper/store"
)

// NoRetry as EnqueueOpts.MaxRetries means the job is never retried.
const NoRetry = -1

// EnqueueOpts are per-call enqueue options. A nil *EnqueueOpts, and every
// zero field, means the default: the args' own EnqueueOpts when the type
// implements ArgsWithOpts, then the Client's config. Each option reaches
// the job's field of the same name (store.NewJob and its JobSpec), but
// Unique, which sets the unique key.
type EnqueueOpts struct {
	// Queue to put the job in. Defaults to the Client's queue ("default").
	Queue string
	// ID makes the enqueue idempotent: a job with this ID already in the
	// queue is reported as a duplicate instead of added. Defaults to a new
	// time-ordered ID. Not allowed with EnqueueMany of more than one job.
	ID string
	// Delay runs the job this long after the store's now. Zero or negative
	// means now.
	Delay time.Duration
	// RunAt runs the job at this time; it wins over Delay. A time in the
	// past means now.
	RunAt time.Time
	// MaxRetries is how often a failed job is retried. Zero means the
	// Client's default (25); NoRetry (-1) means never.
	MaxRetries int
	// Timeout bounds each attempt (the handler's context deadline). Zero
	// means the worker's default.
	Timeout time.Duration
	// Retention keeps the job in done for this long after it succeeds, with
	// its result. Zero means the queue's retention (none by default).
	Retention time.Duration
	// Group puts the job in a group of its queue: a key such as a tenant,
	// customer or webhook endpoint (1 to 128 printable ASCII bytes, no
	// spaces or commas). Workers take turns over the groups with ready
	// jobs, up to four jobs of a group per turn (round robin), so a group
	// with a million jobs waiting and one with ten progress at one rate; a group's jobs start first in first
	// out; QueueConfig.GroupMaxRunning (with per-group GroupLimits) caps
	// how many of one group run at once across all workers, 1 meaning one
	// at a time. A grouped job has no Priority. Empty means no group: the
	// queue's ungrouped jobs then take their turn in the rotation as one
	// more group, without a cap. Zero means the args' own (ArgsWithOpts).
	Group string
	// Priority orders the job among the ready jobs of its queue: workers
	// claim higher priorities first, and jobs of one priority in the order
	// they became ready (first in, first out). From MinPriority (-3) to
	// MaxPriority (3); zero is the default level, so a job can be made
	// more or less urgent than the rest. A job keeps its priority through
	// delays, retries and requeues. Priority orders one queue; across
	// queues, WorkerConfig's weights decide. It orders claims: a worker
	// runs the jobs it already holds (WorkerConfig.Prefetch, and two
	// claims in flight on a backlog) before a higher priority that came
	// since; Prefetch -1 with one slot runs strictly in order. A claim
	// costs one list pop per level in use, so the feature is free in a
	// queue that never saw a priority. Zero means the args' own
	// (ArgsWithOpts), else the default level.
	Priority int
	// Meta is string metadata stored with the job (trace context goes here).
	Meta map[string]string
	// Unique, when set, makes the job unique in its queue while it waits or
	// runs: see UniqueOpts.
	Unique *UniqueOpts
	// Replace, when this job's ID or unique key is held by a job still
	// waiting (pending, ready or retry), changes that job instead of
	// dropping this one: ReplaceArgs gives it this job's args and options,
	// ReplaceRunAt this job's due time (RunAt, or Delay from now), both
	// together debounce. A running or ended holder is never changed, nor
	// a workflow task. JobInfo.Replaced reports a change. Zero means a
	// duplicate is dropped. See Replace for the table.
	Replace Replace
}

// UniqueOpts makes a job unique: while a job with the same key is in its
// queue and not finished, enqueueing another reports a duplicate naming the
// holder. The key is released when the job is acked, reaches garbage, is
// deleted or cancelled, or after For.
type UniqueOpts struct {
	// Key is the uniqueness key. Defaults to the job's kind and a hash of its
	// encoded args, so the same kind with equal args is one job.
	Key string
	// For bounds how long the key is held. Zero means until the job
	// finishes.
	For time.Duration
}

// JobInfo is what Enqueue did with one job.
type JobInfo struct {
	// ID of the job, or for a duplicate, of the job that holds the ID or
	// unique key.
	ID    string
	Queue string
	Kind  string
	// State is where the job went: StatePending or StateReady. Empty for a
	// duplicate, but for a replaced one (StateRetry too).
	State JobState
	// Duplicate reports that the job was not added because its ID or unique
	// key is held. When a client library retries a write whose reply was
	// lost (go-redis does, up to its MaxRetries), the first try may have
	// created the job: the retry then reports Duplicate with the job's own
	// ID. Either way exactly one job exists.
	Duplicate bool
	// Replaced, with Duplicate, reports that the waiting job that holds
	// the ID or unique key took what EnqueueOpts.Replace asked; ID and
	// State are that job's.
	Replaced bool
	// Err is set, by EnqueueMany only, for a job that could not be stored
	// while others of the same call were (its queue's shard failed): the
	// job may or may not exist; enqueueing it again with this ID is safe.
	Err error
}

// Enqueue encodes args and stores one job. Bad options and args fail with an
// error wrapping ErrInvalidJob, ErrInvalidQueue or ErrArgsTooLarge before
// anything reaches the store. Once Enqueue returns without error the job is
// stored (or was already there, see JobInfo.Duplicate).
func Enqueue[T Args](ctx context.Context, c *Client, args T, opts *EnqueueOpts) (*JobInfo, error) {
	p, err := c.newJob(args, opts, time.Now())
	if err != nil {
		return nil, err
	}
	info, err := c.enqueueOne(ctx, p)
	if err != nil {
		return nil, err
	}
	if info.Err != nil {
		return nil, fmt.Errorf("hopper: enqueue: %w", info.Err)
	}
	return info, nil
}

// EnqueueMany stores many jobs of one type with the same options in one
// Store call (one round trip per queue on Redis); results are in the order
// of args. Every job is validated first: one invalid job fails the call and
// none is stored. A store then writes the jobs in atomic steps
// (redisstore: one script per queue and per 1,000 jobs; memstore: the whole
// call). If a step fails after others were stored, EnqueueMany returns
// every job's JobInfo, the failed ones with Err set, and an error saying
// how many were not stored: enqueue those again with their IDs
// (EnqueueOpts.ID) to be safe, since a step whose reply was lost may have
// been applied. When nothing was stored it returns only the error.
func EnqueueMany[T Args](ctx context.Context, c *Client, args []T, opts *EnqueueOpts) ([]*JobInfo, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if opts != nil && opts.ID != "" && len(args) > 1 {
		return nil, fmt.Errorf("%w: EnqueueOpts.ID given for %d jobs; IDs must be unique", ErrInvalidJob, len(args))
	}
	now := time.Now()
	jobs := make([]*PreparedJob, len(args))
	for i, a := range args {
		p, err := c.newJob(a, opts, now)
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", i, err)
		}
		jobs[i] = p
	}
	return c.enqueueBatch(ctx, jobs)
}

// enqueueBatch is enqueue for EnqueueMany and EnqueuePrepared: when some
// jobs' store steps failed it returns every JobInfo and an error saying
// how many.
func (c *Client) enqueueBatch(ctx context.Context, jobs []*PreparedJob) ([]*JobInfo, error) {
	infos, err := c.enqueue(ctx, jobs)
	if err != nil {
		return nil, err
	}
	var firstErr error
	failed := 0
	for _, info := range infos {
		if info.Err != nil {
			failed++
			firstErr = cmp.Or(firstErr, info.Err)
		}
	}
	if failed > 0 {
		return infos, fmt.Errorf("hopper: enqueue: %d of %d jobs not stored (their JobInfo.Err says why): %w", failed, len(jobs), firstErr)
	}
	return infos, nil
}

func jobInfo(j *store.NewJob, r store.EnqueueResult) *JobInfo {
	info := &JobInfo{ID: r.ID, Queue: j.Queue, Kind: j.Kind, State: r.State, Duplicate: r.Duplicate, Replaced: r.Replaced, Err: r.Err}
	if r.Err != nil {
		info.ID = j.ID
	}
	return info
}

// newJob encodes args and resolves options: explicit opts, then the args'
// own defaults, then the client's. The job's Meta is its own (opts.Meta
// copied), so that middleware may write it.
func (c *Client) newJob(args Args, opts *EnqueueOpts, now time.Time) (*PreparedJob, error) {
	o := mergeOpts(args, opts)
	kind := args.Kind()
	b, err := encodeArgs(args)
	if err != nil {
		return nil, err
	}
	if c.cfg.MaxArgsBytes > 0 && len(b) > c.cfg.MaxArgsBytes {
		return nil, fmt.Errorf("%w: kind %q encodes to %d bytes, limit %d (ClientConfig.MaxArgsBytes)", ErrArgsTooLarge, kind, len(b), c.cfg.MaxArgsBytes)
	}
	p := &PreparedJob{job: store.NewJob{Kind: kind, Args: b}}
	j := &p.job
	optsPlan.Copy(j, &o)
	if j.Queue == "" {
		j.Queue = c.cfg.Queue
	}
	switch {
	case j.MaxRetries == 0:
		j.MaxRetries = c.cfg.MaxRetries
	case j.MaxRetries < 0:
		if j.MaxRetries != NoRetry {
			return nil, fmt.Errorf("%w: MaxRetries %d: use NoRetry (-1) for none", ErrInvalidJob, j.MaxRetries)
		}
		j.MaxRetries = 0
	}
	if j.ID == "" {
		j.ID = newID(now)
	}
	if u := o.Unique; u != nil {
		j.UniqueKey, j.UniqueFor = u.Key, u.For
		if j.UniqueKey == "" {
			sum := sha256.Sum256(b)
			j.UniqueKey = kind + ":" + hex.EncodeToString(sum[:16])
		}
	}
	if err := j.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// mergeOpts overlays opts on the args' own defaults: every field opts sets
// (not zero) wins.
func mergeOpts(args Args, opts *EnqueueOpts) EnqueueOpts {
	var o EnqueueOpts
	if a, ok := args.(ArgsWithOpts); ok {
		o = a.EnqueueOpts()
	}
	if opts != nil {
		overlayPlan.Copy(&o, opts)
	}
	return o
}
