package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// outageProbeEvery is how often an interrupted "hopper events" asks the
// store whether it answers again.
const outageProbeEvery = 500 * time.Millisecond

// outage tells the user of "hopper events" that following its queues is
// interrupted by a store error (Redis down: Subscribe tries again with a
// backoff, silently), once per interruption and not per retry, and when
// it resumes: at the next event, or when probe, a read of the queues'
// streams, succeeds, whichever comes first. Its methods are safe for
// concurrent use.
type outage struct {
	w      io.Writer // stderr
	queues string
	probe  func(ctx context.Context) error

	mu   sync.Mutex
	n    int                // interruptions so far; the current one while down
	down bool               // interrupted, not resumed yet
	stop context.CancelFunc // ends the current interruption's watch
	wg   sync.WaitGroup
}

// failed reports a store error of the subscription: the first of an
// interruption is said, and watched for its end.
func (o *outage) failed(ctx context.Context, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down {
		return
	}
	o.down = true
	o.n++
	fmt.Fprintf(o.w, "hopper events: following %s is interrupted: %s; retrying until the store answers\n", o.queues, errText(err))
	wctx, cancel := context.WithCancel(ctx)
	o.stop = cancel
	o.wg.Add(1)
	go func(n int) {
		defer o.wg.Done()
		o.watch(wctx, n)
	}(o.n)
}

// watch probes the store until it answers, then ends interruption n.
func (o *outage) watch(ctx context.Context, n int) {
	t := time.NewTicker(outageProbeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if o.probe(ctx) == nil {
			o.resumed(n)
			return
		}
	}
}

// resumed ends interruption n (0: the current one, for the subscription
// yielding again) and says so; nothing when it is over already.
func (o *outage) resumed(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.down || n != 0 && n != o.n {
		return
	}
	o.down = false
	o.stop()
	fmt.Fprintf(o.w, "hopper events: resumed following %s\n", o.queues)
}

// close ends the watch, if any, and waits for it.
func (o *outage) close() {
	o.mu.Lock()
	if o.stop != nil {
		o.stop()
	}
	o.mu.Unlock()
	o.wg.Wait()
}
