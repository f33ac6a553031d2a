package hopper

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper/internal/msgpackguard"
	"github.com/hopperq/hopper/store"
)

// JobUpdate is what Inspector.UpdateJob changes of a waiting job. A zero
// field changes nothing.
type JobUpdate struct {
	// RunAt is the job's new due time: a time not in the future makes it
	// ready now, a later one puts it in pending (or keeps it in retry)
	// until then. Zero leaves it.
	RunAt time.Time
	// Args replaces the job's args, and its kind with Args.Kind(): encoded
	// and checked as Enqueue does. Nil leaves them.
	Args Args
	// EncodedArgs, when not nil, replaces the job's args with these
	// msgpack bytes, its kind unchanged (an operator's edit from the
	// dashboard); checked as Enqueue checks encoded args (well formed, at
	// most MaxArgsDepth deep and DefaultMaxArgsBytes long). Args wins
	// when both are set.
	EncodedArgs []byte
	// Priority, when not nil, is the job's new priority (MinPriority to
	// MaxPriority, see EnqueueOpts.Priority). A ready job whose priority
	// changes goes to the back of its new level. Nil leaves it.
	Priority *int
}

// UpdateJob changes a job that waits (pending, ready or retry): its due
// time, its args, its priority, or several, in one atomic step of the store (the same step
// as EnqueueOpts.Replace takes, with store.ReplaceOnly: nothing is ever
// added). The job keeps its ID, attempt count, error history, meta, unique
// key and enqueue time. It returns the job as it is after the change.
//
// A job that runs or has ended, or a workflow task's job, is not changed,
// and the error wraps
// ErrInvalidState, also when it started between the read and the change;
// an unknown job gives ErrJobNotFound; an update with no field set, or
// args that do not encode, ErrInvalidJob, before the store is called.
// Safe for concurrent use; of two updates of one job, the later wins.
func (i *Inspector) UpdateJob(ctx context.Context, queue, id string, u JobUpdate) (*JobRecord, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	if u.RunAt.IsZero() && u.Args == nil && u.EncodedArgs == nil && u.Priority == nil {
		return nil, fmt.Errorf("%w: UpdateJob of %q with nothing to change (set RunAt, Args, EncodedArgs or Priority)", ErrInvalidJob, id)
	}
	var encoded []byte
	if u.Args != nil {
		if err := checkArgs(u.Args); err != nil {
			return nil, fmt.Errorf("UpdateJob of %q: %w", id, err)
		}
		b, err := encodeArgs(u.Args)
		if err != nil {
			return nil, err // wraps ErrInvalidJob
		}
		encoded = b
	}
	if u.Args == nil && u.EncodedArgs != nil {
		if len(u.EncodedArgs) > DefaultMaxArgsBytes {
			return nil, fmt.Errorf("%w: UpdateJob of %q: args of %d bytes, at most %d", ErrArgsTooLarge, id, len(u.EncodedArgs), DefaultMaxArgsBytes)
		}
		if err := msgpackguard.Check(u.EncodedArgs); err != nil {
			return nil, fmt.Errorf("%w: UpdateJob of %q: args are not well-formed msgpack: %v", ErrInvalidJob, id, err)
		}
	}
	rec, err := i.GetJob(ctx, queue, id)
	if err != nil {
		return nil, err
	}
	if wf, task, ok := TaskOf(rec); ok {
		return nil, fmt.Errorf("%w: job %q is task %q of workflow %q, which owns it: it cannot be changed alone", ErrInvalidState, id, task, wf)
	}
	if !rec.State.Replaceable() {
		return nil, fmt.Errorf("%w: job %q of queue %q is %s: only a waiting job (pending, ready or retry) can be changed", ErrInvalidState, id, queue, rec.State)
	}
	spec := rec.JobSpec
	// Without its unique key: were the job gone by now, the store would
	// change the key's next holder instead. The job keeps its own.
	spec.UniqueKey, spec.UniqueFor = "", 0
	nj := &store.NewJob{ID: id, Queue: queue, Kind: rec.Kind, Args: rec.Args, JobSpec: spec, Replace: store.ReplaceOnly}
	if u.Args != nil {
		nj.Kind, nj.Args = u.Args.Kind(), encoded
		nj.Replace |= store.ReplaceArgs
	} else if u.EncodedArgs != nil {
		nj.Args = u.EncodedArgs
		nj.Replace |= store.ReplaceArgs
	}
	if u.Priority != nil {
		nj.Priority = *u.Priority
		nj.Replace |= store.ReplaceArgs
	}
	if !u.RunAt.IsZero() {
		if u.RunAt.After(time.Now()) {
			nj.RunAt = u.RunAt
		} // else due at the store's now, not a millisecond after it
		nj.Replace |= store.ReplaceRunAt
	}
	if err := nj.Validate(); err != nil {
		return nil, err
	}
	res, err := i.st.Enqueue(ctx, []*store.NewJob{nj})
	if err != nil {
		return nil, err
	}
	if res[0].Err != nil {
		return nil, res[0].Err
	}
	if !res[0].Replaced {
		return nil, fmt.Errorf("%w: job %q of queue %q started or ended before the change: it is unchanged", ErrInvalidState, id, queue)
	}
	return i.GetJob(ctx, queue, id)
}
