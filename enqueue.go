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
// anything reaches the store; args msgpack cannot encode (a channel or a
// func in them) wrap ErrInvalidJob and msgpack's error. Once Enqueue
// returns without error the job is stored (or was already there, see
// JobInfo.Duplicate). A call that fails later may have stored it: on Redis
// when ctx ends before the reply (the error wraps ctx's and says "not
// stored" or "may be stored") or the connection breaks (ErrUnavailable).
// Set EnqueueOpts.ID to retry such a call safely: a stored job comes back
// as a duplicate (docs/guarantees.md, "An Enqueue that fails").
func Enqueue[T Args](ctx context.Context, c *Client, args T, opts *EnqueueOpts) (*JobInfo, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	// The job and the one-element batch that carries it to the store, in
	// one allocation.
	one := new(oneJob)
	if err := c.fillJob(&one.p, args, opts, forEnqueue, time.Now()); err != nil {
		return nil, err
	}
	one.batch[0] = &one.p.job
	info, err := c.enqueueOne(ctx, &one.p, one.batch[:])
	if err != nil {
		return nil, err
	}
	if info.Err != nil {
		return nil, errorf("hopper: enqueue: %w", info.Err)
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
// been applied. When nothing was stored, or the store cannot tell (the
// reply of the only step was lost: the jobs may be stored), it returns
// only the error, and the IDs it chose are gone with it: a caller that
// must retry a batch without duplicates makes its jobs with PrepareMany,
// whose IDs are fixed, and sends the same PreparedJobs again with
// EnqueuePrepared until it succeeds (a job stored by a lost try comes
// back as a duplicate).
func EnqueueMany[T Args](ctx context.Context, c *Client, args []T, opts *EnqueueOpts) ([]*JobInfo, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	if len(args) == 0 {
		return nil, nil
	}
	if opts != nil && opts.ID != "" && len(args) > 1 {
		return nil, fmt.Errorf("%w: EnqueueOpts.ID given for %d jobs; IDs must be unique", ErrInvalidJob, len(args))
	}
	now := time.Now()
	jobs := make([]*PreparedJob, len(args))
	for i, a := range args {
		p, err := c.newJob(a, opts, forEnqueue, now)
		if err != nil {
			return nil, errorAt(fmt.Sprintf("job %d", i), err)
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
		return infos, errorf("hopper: enqueue: %d of %d jobs not stored (their JobInfo.Err says why): %w", failed, len(jobs), firstErr)
	}
	return infos, nil
}

// checkMeta refuses, with an error wrapping ErrInvalidJob, Meta with an
// empty key (EnqueueOpts.Meta), which names nothing, and a plain job's
// Meta with store.MetaWorkflow or store.MetaTask, which mark a workflow
// task's job: only a workflow sets them (a task's Meta copied to a
// follow-up job would carry them).
func checkMeta(meta map[string]string) error {
	if len(meta) == 0 {
		return nil
	}
	if err := checkMetaKeys(meta); err != nil {
		return err
	}
	for _, k := range [...]string{store.MetaWorkflow, store.MetaTask} {
		if _, ok := meta[k]; ok {
			return fmt.Errorf("%w: Meta holds %q, which marks a workflow task's job and only a workflow sets: leave it out (Meta copied from a task's job carries it)", ErrInvalidJob, k)
		}
	}
	return nil
}

// checkMetaKeys refuses Meta with an empty key, as checkMeta does, and
// Meta over MaxMetaBytes (a 100 MB value went through, past the args'
// limit, and the dashboard's page of the job carried it whole); it checks
// a task's job, whose reserved keys its workflow set.
func checkMetaKeys(meta map[string]string) error {
	if _, ok := meta[""]; ok {
		return fmt.Errorf("%w: Meta has an empty key: every key must be at least one byte", ErrInvalidJob)
	}
	n := 0
	for k, v := range meta {
		n += len(k) + len(v)
	}
	if n > MaxMetaBytes {
		return fmt.Errorf("%w: Meta holds %d bytes of keys and values, at most %d (MaxMetaBytes): put the job's data in its args", ErrInvalidJob, n, MaxMetaBytes)
	}
	return nil
}

// checkMetaAfterMiddleware checks again, with check (checkMeta, or
// checkMetaKeys for tasks' jobs), the Meta of the jobs that reach the
// store through enqueue middleware, which may have added keys after the
// options were checked: a job refused fails the whole call, naming it.
func checkMetaAfterMiddleware(jobs []*PreparedJob, check func(map[string]string) error) error {
	for i, p := range jobs {
		if err := check(p.job.Meta); err != nil {
			return errorAt(fmt.Sprintf("job %d (ID %q), after enqueue middleware", i, p.job.ID), err)
		}
	}
	return nil
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
func (c *Client) newJob(args Args, opts *EnqueueOpts, use optsFor, now time.Time) (*PreparedJob, error) {
	p := new(PreparedJob)
	if err := c.fillJob(p, args, opts, use, now); err != nil {
		return nil, err
	}
	return p, nil
}

// oneJob is the job of an Enqueue call and its batch of one.
type oneJob struct {
	p     PreparedJob
	batch [1]*store.NewJob
}

// fillJob is newJob into p, a zero PreparedJob.
func (c *Client) fillJob(p *PreparedJob, args Args, opts *EnqueueOpts, use optsFor, now time.Time) error {
	if err := checkArgs(args); err != nil {
		return err
	}
	o := mergeOpts(args, opts, use)
	kind := args.Kind()
	b, err := encodeArgsIn(args, p.args[:0])
	if err != nil {
		return err
	}
	if c.cfg.MaxArgsBytes > 0 && len(b) > c.cfg.MaxArgsBytes {
		return fmt.Errorf("%w: kind %q encodes to %d bytes, limit %d (ClientConfig.MaxArgsBytes)", ErrArgsTooLarge, kind, len(b), c.cfg.MaxArgsBytes)
	}
	p.job = store.NewJob{Kind: kind, Args: b}
	j := &p.job
	optsPlan.Copy(j, &o)
	if j.Queue == "" {
		j.Queue = c.cfg.Queue
	} else if store.EnqueueQueueNeedsCheck(j.Queue) {
		// A partition's name, or not a queue name at all: either way
		// refused before the store, with one message.
		if err := store.ValidateEnqueueQueue(j.Queue); err != nil {
			return err
		}
	}
	switch {
	case j.MaxRetries == 0:
		j.MaxRetries = c.cfg.MaxRetries
	case j.MaxRetries < 0:
		if j.MaxRetries != NoRetry {
			return fmt.Errorf("%w: MaxRetries %d: use NoRetry (-1) for none", ErrInvalidJob, j.MaxRetries)
		}
		j.MaxRetries = 0
	}
	if err := checkMeta(j.Meta); err != nil {
		return err
	}
	if j.Replace != 0 && j.ID == "" && o.Unique == nil {
		// A new ID matches no job: the flags would do nothing.
		return fmt.Errorf("%w: EnqueueOpts.Replace needs an ID or a Unique key to match the job it replaces", ErrInvalidJob)
	}
	if j.ID == "" {
		j.ID = newID(now)
	} else if store.EnqueueIDNeedsCheck(j.ID) {
		// Reserved for workflow tasks' job IDs: a task's ID is set after
		// this, by buildTasks, so only a caller's ID is ever checked.
		return store.ValidateEnqueueID(j.ID)
	}
	if u := o.Unique; u != nil {
		if u.For < 0 {
			// Named as the caller wrote it; the store's check says UniqueFor.
			return fmt.Errorf("%w: Unique.For %v is negative", ErrInvalidJob, u.For)
		}
		j.UniqueKey, j.UniqueFor = u.Key, u.For
		if j.UniqueKey == "" {
			sum := sha256.Sum256(b)
			j.UniqueKey = kind + ":" + hex.EncodeToString(sum[:16])
		}
	}
	return j.Validate()
}
