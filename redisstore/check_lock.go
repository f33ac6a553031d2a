package redisstore

import "context"

// checkLock is the lock of the start-up check (Check, ensureChecked,
// prepareAdmin): one check runs at a time, and a call that waits for
// another's gives up when its own context ends. A sync.Mutex made a call
// with a 200 ms deadline wait out a check another goroutine ran against
// an unreachable server, seconds of dial timeouts. Make it with
// make(checkLock, 1).
type checkLock chan struct{}

// lock takes the lock, or returns the server check's error for ctx's end.
func (l checkLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	default:
	}
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return wrap("server check", ctx.Err())
	}
}

// lockAlways takes the lock whatever the context: for the few writes of
// the check's state that must not be skipped.
func (l checkLock) lockAlways() { l <- struct{}{} }

// unlock releases the lock.
func (l checkLock) unlock() { <-l }
