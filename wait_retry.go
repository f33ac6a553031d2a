package hopper

import (
	"context"
	"errors"
	"time"
)

// A store's error says, with a method StoreTemporary() bool returning
// true, that it may clear by itself, so that asking again later may
// succeed: Redis loading its data set after a restart, a connection
// refused or broken, a replica promoted (redisstore.Temporary lists the
// classes). WaitJob and WaitWorkflow then watch again rather than return
// it (package hopper imports no store).
type temporaryError interface{ StoreTemporary() bool }

// storeTemporary reports whether err says it may clear by itself (see
// temporaryError).
func storeTemporary(err error) bool {
	var t temporaryError
	return errors.As(err, &t) && t.StoreTemporary()
}

// waitRetryMax bounds the wait between two watches of a wait whose store
// failed for a while: 10 ms, doubling, up to this.
const waitRetryMax = time.Second

// watchEnd starts a watch (watch) and returns the one end it sends, with
// the end's own error (errOf), or ctx's error when ctx ends first. A
// store error that may clear by itself (storeTemporary), from the watch's
// start or its end, starts it again after a backoff, until ctx ends: a
// wait that begins while Redis is loading its data, or whose connection
// breaks, goes on waiting.
func watchEnd[E any](ctx context.Context, watch func() (<-chan E, error), errOf func(E) error) (E, error) {
	var zero E
	for fails := 0; ; fails++ {
		ch, err := watch()
		if err == nil {
			var end E
			end, err = receive(ctx, ch)
			if err == nil {
				err = errOf(end)
			}
			if err == nil || !storeTemporary(err) {
				return end, err
			}
		} else if !storeTemporary(err) {
			return zero, err
		}
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
		sleep(ctx, min(waitRetryMax, time.Duration(1<<min(fails, 7))*10*time.Millisecond))
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
	}
}
