package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// attemptCtx is the context a handler gets: the slot's kept context
// (slotCtx) with the attempt as a value and the attempt's timeout as its
// deadline. It behaves as context.WithDeadlineCause (or, without a
// timeout, context.WithCancel) over context.WithValue would, but makes
// that timer context only when something needs it: Done, Err or a value
// lookup once the deadline has passed, the parent was cancelled or the
// attempt ended, or a child context (which calls Done). A handler that
// never watches its context, as short jobs' handlers often do not, then
// costs one allocation and no timer, where the two contexts cost five
// allocations and a timer set and stopped (attempt_ctx_test.go's
// benchmark).
//
// Cancellation reaches it as it reaches the contexts it stands for: an
// interrupt cancels the parent, and the attempt's end (stop) cancels it
// with context.Canceled. Safe for concurrent use, as every context.
type attemptCtx struct {
	parent   context.Context
	a        *attempt
	deadline time.Time // zero: no timeout
	cause    error     // the deadline's cause, context.Cause's once it passed
	made     atomic.Pointer[madeCtx]
	stopped  atomic.Bool // the attempt ended: stop was called
	mu       sync.Mutex  // serializes making the context and stop
}

// madeCtx is the timer (or cancel) context an attemptCtx made, and its
// cancel function.
type madeCtx struct {
	ctx  context.Context
	stop context.CancelFunc
}

// newAttemptCtx returns a's context on parent, with the deadline and its
// cause when deadline is not zero.
func newAttemptCtx(parent context.Context, a *attempt, deadline time.Time, cause error) *attemptCtx {
	c := new(attemptCtx)
	c.init(parent, a, deadline, cause)
	return c
}

// init makes c, a zero attemptCtx, newAttemptCtx's context.
func (c *attemptCtx) init(parent context.Context, a *attempt, deadline time.Time, cause error) {
	c.parent, c.a, c.deadline, c.cause = parent, a, deadline, cause
}

// real returns the context made for c, making it on the first call.
func (c *attemptCtx) real() context.Context {
	if m := c.made.Load(); m != nil {
		return m.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.made.Load(); m != nil {
		return m.ctx
	}
	m := new(madeCtx)
	if c.deadline.IsZero() {
		m.ctx, m.stop = context.WithCancel(c.parent)
	} else {
		m.ctx, m.stop = context.WithDeadlineCause(c.parent, c.deadline, c.cause)
	}
	if c.stopped.Load() {
		m.stop()
	}
	c.made.Store(m)
	return m.ctx
}

// ended reports whether c is done without having made its context: the
// attempt ended, its deadline passed or its parent was cancelled. Then
// the made context must answer, with the error and cause it records.
func (c *attemptCtx) ended() bool {
	return c.stopped.Load() || c.parent.Err() != nil || (!c.deadline.IsZero() && !time.Now().Before(c.deadline))
}

// stop ends the attempt's context: it is cancelled, if nothing else ended
// it first, and its timer (if one was made) released.
func (c *attemptCtx) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped.Store(true)
	if m := c.made.Load(); m != nil {
		m.stop()
	}
}

// Deadline is the attempt's deadline, or its parent's when that comes
// first or the attempt has no timeout.
func (c *attemptCtx) Deadline() (time.Time, bool) {
	if d, ok := c.parent.Deadline(); ok && (c.deadline.IsZero() || d.Before(c.deadline)) {
		return d, true
	}
	return c.deadline, !c.deadline.IsZero()
}

// Done makes the context that enforces the deadline, and returns its
// channel.
func (c *attemptCtx) Done() <-chan struct{} { return c.real().Done() }

// Err is nil while the attempt runs within its deadline and its parent
// lives; after that the made context's error.
func (c *attemptCtx) Err() error {
	if m := c.made.Load(); m != nil {
		return m.ctx.Err()
	}
	if !c.ended() {
		return nil
	}
	return c.real().Err()
}

// Value returns the attempt for attemptKey, and otherwise the parent's
// value, or once c has ended the made context's (which holds the cause
// context.Cause reads).
func (c *attemptCtx) Value(key any) any {
	if _, ok := key.(attemptKey); ok {
		return c.a
	}
	if m := c.made.Load(); m != nil {
		return m.ctx.Value(key)
	}
	if c.ended() {
		return c.real().Value(key)
	}
	return c.parent.Value(key)
}

// String names the context, as the context package's own do.
func (c *attemptCtx) String() string { return "hopper attempt context" }
