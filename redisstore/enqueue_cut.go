package redisstore

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
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
	var msg string
	switch {
	case e.sent:
		msg = op + e.ctxErr.Error() + " before the reply came: " + storedAdvice(e.n)
	case e.n == 1:
		msg = op + e.ctxErr.Error() + " before the job was sent: it is not stored"
	default:
		msg = op + e.ctxErr.Error() + " before the jobs were sent: none is stored"
	}
	if e.err != nil && !errors.Is(e.err, e.ctxErr) {
		// The call's own error, unless it only repeats the context's.
		msg += ": " + e.err.Error()
	}
	return msg
}

// MayBeStored reports whether the jobs may be stored: they were sent
// (store.MayBeStored).
func (e *cutError) MayBeStored() bool { return e.sent }

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
// tried to send, when ctx has ended: the error of each wraps the
// context's and says whether the job may be stored, as it was written to
// a connection (encJob.written), or is not, as it never left the process
// (every dial refused until the deadline: an outside trial while Redis
// restarted). A job whose call Redis answered with an error keeps that
// error: the reply came, and said it is not stored (answered).
func cutItems(ctx context.Context, items []*encJob) {
	ended := ctxEnded(ctx)
	if ended == nil {
		return
	}
	for _, it := range items {
		if it.err == nil || answered(it.err) {
			continue
		}
		err := it.err
		if l, ok := err.(*lostError); ok {
			err = l.err // the cut's text gives the advice
		}
		sent := atomic.LoadUint32(&it.written) != 0
		it.err = cutOf(ended, err, sent, []*encJob{it})
	}
}

// storedAdvice is what the error of a call of n jobs that may be stored
// says of them.
func storedAdvice(n int) string {
	if n == 1 {
		return "the job may be stored (enqueue it again with the same ID: if it is stored it comes back as a duplicate)"
	}
	return "the jobs may be stored (enqueue them again with the same IDs: one that is stored comes back as a duplicate)"
}

// lostError is the error of an enqueue whose jobs were written to a
// connection when the call failed without Redis's reply: a read timeout,
// the connection reset or closed under it, or a write that broke part
// way. Each job may be stored. err is the call's error (a redisError,
// which names the queue and keeps the class, ErrUnavailable, and
// go-redis's error); n is how many jobs the text speaks of.
type lostError struct {
	err error
	n   int
}

func (e *lostError) Error() string { return e.err.Error() + ": " + storedAdvice(e.n) }

// MayBeStored reports true: the jobs may be stored (store.MayBeStored).
func (e *lostError) MayBeStored() bool { return true }

// Unwrap returns the call's error, so that errors.Is(err, ErrUnavailable)
// and errors.As of go-redis's net.Error hold.
func (e *lostError) Unwrap() error { return e.err }

// lostItems marks the failed jobs of items, one script call's, that may
// be stored although the call failed with err: those written to a
// connection (encJob.written), unless Redis answered the call (answered).
// A job never written is not stored: the call found no connection (the
// dial refused, the pool's timeout, the client closed). A call sent
// again after its connection broke (as go-redis would: resendFailed)
// whose last try failed before it was written is marked all the same:
// the first try may have run. One whose last try Redis answered with an
// error is not: the store cannot tell that reply from a first one, and
// only a connection that broke under the call and a refusal just after
// make the text wrong.
func lostItems(items []*encJob, err error) {
	if err == nil || answered(err) {
		return
	}
	for _, it := range items {
		if it.err != nil && atomic.LoadUint32(&it.written) != 0 {
			it.err = &lostError{err: it.err, n: 1}
		}
	}
}

// answered reports whether err, a failed call's, is Redis's reply to it
// and tells the job is not stored: an error reply (the script ran and
// failed, or the server refused it: OOM, NOPERM, READONLY, ...), or a
// queue whose shape kept changing. Not ErrNotReplicated: its writes are
// on the master, which a failover may yet lose, so the job may be stored.
func answered(err error) bool {
	if errors.Is(err, ErrNotReplicated) {
		return false
	}
	if _, ok := errors.AsType[redis.Error](err); ok {
		return true
	}
	return errors.Is(err, errShapeMoving)
}

// callErr returns err, the error of every job of a call of items, for the
// whole call: a call of several jobs that may be stored says "the jobs"
// and names their queue when they share one, whichever job's error err
// was. When jobs failed differently (on two shards), the error of a job
// that may be stored stands for the call: one that says nothing would
// hide it (store.MayBeStored).
func callErr(err error, items []*encJob) error {
	if len(items) == 1 {
		return err
	}
	if !store.MayBeStored(err) {
		for _, it := range items {
			if store.MayBeStored(it.err) {
				err = it.err
				break
			}
		}
	}
	switch e := err.(type) {
	case *lostError:
		return &lostError{err: e.err, n: len(items)}
	case *cutError:
		if e.sent {
			return cutOf(e.ctxErr, e.err, true, items)
		}
	}
	return err
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
