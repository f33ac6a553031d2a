package redisstore

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// cutError is the error of an enqueue whose caller's context ended before
// the call's reply came. sent tells the two cases apart: the jobs never
// left the process (none is stored), or they were on their way to Redis
// or there (each may be stored). err is the call's own error, when the
// call failed under the ended context (an i/o timeout of go-redis's
// ContextTimeoutEnabled, say); nil when the caller stopped waiting.
// n is how many jobs the call carried and queue their queue ("" when
// they went to several): the text speaks of one job or several, and
// names the queue as the enqueue's other errors do.
type cutError struct {
	ctxErr error
	err    error
	sent   bool
	n      int
	queue  string
}

// cutOf returns the cutError of a call of items.
func cutOf(ctxErr, err error, sent bool, items []*encJob) *cutError {
	e := &cutError{ctxErr: ctxErr, err: err, sent: sent, n: len(items)}
	if len(items) > 0 && sameQueue(items) {
		e.queue = items[0].queue
	}
	return e
}

func (e *cutError) Error() string {
	op := "redisstore: enqueue: "
	if e.queue != "" {
		op = "redisstore: enqueue into " + strconv.Quote(e.queue) + ": "
	}
	if !e.sent {
		if e.n == 1 {
			return op + e.ctxErr.Error() + " before the job was sent: it is not stored"
		}
		return op + e.ctxErr.Error() + " before the jobs were sent: none is stored"
	}
	advice := "the jobs may be stored (enqueue them again with the same IDs: one that is stored comes back as a duplicate)"
	if e.n == 1 {
		advice = "the job may be stored (enqueue it again with the same ID: if it is stored it comes back as a duplicate)"
	}
	msg := op + e.ctxErr.Error() + " before the reply came: " + advice
	if e.err != nil && !errors.Is(e.err, e.ctxErr) {
		// The call's own error, unless it only repeats the context's.
		msg += ": " + e.err.Error()
	}
	return msg
}

// Unwrap returns the context's error and, when the call failed, its error,
// so that errors.Is(err, context.DeadlineExceeded) holds and the call's
// class (ErrUnavailable) is kept.
func (e *cutError) Unwrap() []error {
	if e.err == nil {
		return []error{e.ctxErr}
	}
	return []error{e.ctxErr, e.err}
}

// notSent is the error of an enqueue of items whose context ended before
// they were sent.
func notSent(ctx context.Context, items []*encJob) error { return cutOf(ctx.Err(), nil, false, items) }

// cutItems marks the failed jobs of items, which a call made with ctx
// sent, when ctx has ended: each may be stored, and its error says so and
// wraps the context's.
func cutItems(ctx context.Context, items []*encJob) {
	ended := ctxEnded(ctx)
	if ended == nil {
		return
	}
	for _, it := range items {
		if it.err != nil {
			it.err = cutOf(ended, it.err, true, []*encJob{it})
		}
	}
}

// ctxEnded returns ctx's error, or context.DeadlineExceeded once its
// deadline has passed: a connection given the deadline (go-redis's
// ContextTimeoutEnabled) times out at that instant, and the context's
// timer may mark it done a moment later.
func ctxEnded(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
