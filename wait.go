package hopper

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

// WaitRetention is the least retention EnqueueAndWait gives a job, so that
// its result is still kept when the wait starts after a fast worker acked
// it.
const WaitRetention = time.Minute

// WaitJob blocks until the job id of queue ends, or ctx is done, and returns
// the job as it ended, without polling: the store tells waiting callers of
// each job's end (on Redis, one pub/sub message per waited job; waiting
// costs the other jobs one check per finishing step). It returns:
//
//   - the job and nil when it was acked: JobRecord.Result holds what the
//     handler recorded (RecordResult). The record has at least the job's
//     ID, Queue, Kind, State, Attempt, FinishedAt and Result (Redis sends
//     those with the end, so that WaitJob needs no further read); use the
//     Inspector for the rest.
//   - the job and an error wrapping ErrJobDead when it went to garbage,
//     also wrapping ErrCancelled when it was cancelled.
//   - an error wrapping ErrJobNotFound when the queue does not hold the
//     job: never enqueued, deleted, or acked without retention before the
//     wait started (give it a Retention, or use EnqueueAndWait).
//   - ctx's error when ctx ends first (the job goes on).
//   - ErrNotSupported for a store that cannot tell (store.JobWaiter).
//   - an error wrapping ErrInvalidConfig for a nil Client;
//   - a store error that will not clear by itself (a Redis ACL that
//     refuses a command, a store closed for good).
//
// A store error that may clear by itself (Redis loading its data after a
// restart, a connection refused or broken: redisstore.Temporary) does not
// end the wait: WaitJob watches again after a backoff (10 ms, doubling up
// to 1 s) until ctx ends. A job that is retried or snoozed has not ended:
// WaitJob goes on waiting.
func (c *Client) WaitJob(ctx context.Context, queue, id string) (*JobRecord, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	w, ok := store.As[store.JobWaiter](c.st)
	if !ok {
		return nil, fmt.Errorf("%w: the store (%T) cannot wait for jobs", ErrNotSupported, c.st)
	}
	end, err := watchEnd(ctx, func() (<-chan store.JobEnd, error) { return w.WatchJob(ctx, queue, id) },
		func(e store.JobEnd) error { return e.Err })
	if err != nil {
		return nil, err
	}
	return end.Job, endErr(end.Job)
}

// receive returns the one value a store's watch sends on ch, or ctx's
// error when ctx ends first.
func receive[E any](ctx context.Context, ch <-chan E) (E, error) {
	select {
	case end := <-ch:
		return end, nil
	case <-ctx.Done():
		var zero E
		return zero, ctx.Err()
	}
}

// endErr is the error Wait returns with a job that ended in rec's state.
func endErr(rec *JobRecord) error {
	if rec.State != StateGarbage {
		return nil
	}
	last := "no error recorded"
	if n := len(rec.Errors); n > 0 {
		last = strings.TrimPrefix(rec.Errors[n-1].Error, prefix)
	}
	if rec.Cancelled {
		// The recorded error is ErrCancelled's text, alone or before its
		// cause: the message says "cancelled" once and keeps the cause.
		msg := fmt.Sprintf("%s (cancelled): job %q of queue %q", ErrJobDead, rec.ID, rec.Queue)
		cause := last
		if rest, ok := strings.CutPrefix(last, strings.TrimPrefix(ErrCancelled.Error(), prefix)); ok {
			cause = strings.TrimPrefix(strings.TrimPrefix(rest, ": "), prefix)
		}
		if cause != "" {
			msg += ": " + cause
		}
		return wordedError(msg, ErrJobDead, ErrCancelled)
	}
	attempts := "attempts"
	if rec.Attempt == 1 {
		attempts = "attempt"
	}
	return fmt.Errorf("%w: job %q of queue %q after %d %s: %s", ErrJobDead, rec.ID, rec.Queue, rec.Attempt, attempts, last)
}

// EnqueueAndWait enqueues args as Enqueue does, waits for the job to end as
// Client.WaitJob does, and decodes the result its handler recorded
// (RecordResult) into an R as DecodeResult does: request and response over
// the queue. It returns the job's JobInfo as Enqueue does whenever the job
// was stored, with the result or with the wait's error, so that the job can
// be found in logs and the Inspector (a deadline that passed, a job that
// died); the JobInfo is nil only when the enqueue failed. The job's
// retention is at least WaitRetention, so that a job a worker acks before
// the wait starts is still there. Enqueueing a job whose ID or unique key
// is held waits for the job that holds it (JobInfo.Duplicate). ctx's
// deadline bounds the whole call; when it passes, the job goes on and the
// error is ctx's. A job that died returns an error wrapping ErrJobDead
// (and ErrCancelled when cancelled); a result that does not decode into R,
// one wrapping ErrDecode; a job without a recorded result, the zero R.
func EnqueueAndWait[R any, T Args](ctx context.Context, c *Client, args T, opts *EnqueueOpts) (R, *JobInfo, error) {
	var zero R
	if c.unmade() {
		return zero, nil, errNilClient
	}
	if err := checkArgs(args); err != nil {
		return zero, nil, err
	}
	o := mergeOpts(args, opts, forEnqueue)
	if o.Retention < WaitRetention {
		o.Retention = WaitRetention
	}
	info, err := Enqueue(ctx, c, args, &o)
	if err != nil {
		return zero, nil, err
	}
	out, err := WaitResult[R](ctx, c, info.Queue, info.ID)
	return out, info, err
}
