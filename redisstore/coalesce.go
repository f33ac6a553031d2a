package redisstore

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// batcher merges concurrent Enqueue calls into shared round trips.
//
// A call that finds fewer round trips in flight than the batcher's limit
// (one, two or more: flightControl) sends its own jobs at once, in its own
// goroutine and with its own context: a lone call is never delayed. Calls
// that arrive while the limit is in flight queue up; when one ends, its
// goroutine sends everything queued (up to Config.CoalesceMaxJobs jobs)
// as one pipeline, and goes on until the queue is empty, or until the
// limit falls below the round trips in flight (another then takes the
// queue when it ends). Each job keeps
// its own result and error (encJob). Calls that overlap in time have no
// order between them; a call that returned before another began was
// stored first.
//
// A queued call whose context ends before its jobs were taken withdraws
// them and returns an error that wraps the context's and says none is
// stored; the others are unaffected. Once taken, the jobs are sent with a
// context of their own (not the caller's), so one caller's cancellation
// never fails the others' jobs; the cancelled caller returns at once, not
// knowing whether its jobs were added, as with any cancelled write, and
// its error says they may be stored (enqueueing the same IDs again is
// safe): cutError.
type batcher struct {
	s     *Store
	mu    sync.Mutex
	queue []*batchCall
	// inFlight counts the round trips in flight: a leading call's own, or
	// a flusher's (which keeps its count from one round trip to the next
	// while calls are queued).
	inFlight int
	// flights sets how many round trips may be in flight, from what they
	// carry (flight.go).
	flights flightControl
}

// batchCall is one queued Enqueue call.
type batchCall struct {
	items []*encJob
	done  chan struct{} // receives one signal when items hold their results
	state atomic.Int32  // callWaiting, callTaken or callWithdrawn
}

// callPool recycles the batchCalls (and their channels) of calls that
// were answered. A withdrawn or cancelled call is left to the collector:
// the flusher may still hold it.
var callPool = sync.Pool{New: func() any { return &batchCall{done: make(chan struct{}, 1)} }}

const (
	callWaiting int32 = iota
	callTaken
	callWithdrawn
)

// do sends items, alone or merged with other calls, and returns when each
// holds its result or error, or when ctx ends first.
func (b *batcher) do(ctx context.Context, items []*encJob) error {
	b.mu.Lock()
	if b.inFlight < b.flights.limit {
		// Room in flight: lead, sending our own jobs at once.
		b.inFlight++
		b.mu.Unlock()
		l := b.lead()
		b.s.enqueueNow(ctx, items, l)
		cutItems(ctx, items)
		b.next(l, len(items))
		return nil
	}
	c := callPool.Get().(*batchCall)
	c.items = items
	c.state.Store(callWaiting)
	b.queue = append(b.queue, c)
	b.mu.Unlock()
	select {
	case <-c.done:
		c.items = nil
		callPool.Put(c)
		return nil
	case <-ctx.Done():
		if c.state.CompareAndSwap(callWaiting, callWithdrawn) {
			return notSent(ctx, items)
		}
		// Taken: the flusher sends the jobs, or sent them. Whether it
		// wrote them yet (encJob.written) does not say it will not: the
		// jobs may be stored.
		return cutOf(ctx.Err(), nil, true, items)
	}
}

// next, after a leading call's round trip of n jobs, hands the queue to a
// flushing goroutine with that round trip's place in flight and its lease
// l, or gives the place up (stop) when nothing is queued or the limit has
// fallen below what is in flight.
func (b *batcher) next(l *lease, n int) {
	b.mu.Lock()
	b.flights.sent(n, time.Now())
	if b.stop(l) {
		return
	}
	b.mu.Unlock()
	go b.flush(l)
}

// stop ends the place in flight of the round trip that just ended, on
// lease l, when nothing is queued or more round trips are in flight than
// the limit allows: it parks l (or gives it back) and reports true, with
// b.mu released. Otherwise it reports false with b.mu still held. b.mu
// must be held. A place given up with calls queued leaves them to the
// other round trips in flight (there is one: the count exceeded a limit
// of at least one), whose ends take the queue.
func (b *batcher) stop(l *lease) bool {
	if len(b.queue) > 0 && b.inFlight <= b.flights.limit {
		return false
	}
	l = b.s.spare.park(l) // before the next leading call can start
	b.inFlight--
	if b.inFlight == 0 {
		b.flights.idle(time.Now())
	}
	b.mu.Unlock()
	b.done(l)
	return true
}

// flush sends queued calls until the queue is empty or the limit falls
// below the round trips in flight (stop), on lease l (the leading call's
// whose round trip it carries on), then parks l or gives it back.
func (b *batcher) flush(l *lease) {
	ctx := context.Background()
	var buf []*encJob // reused from one round trip to the next
	last := 0         // jobs of the round trip that just ended; 0 before the first
	for {
		b.mu.Lock()
		if last > 0 {
			b.flights.sent(last, time.Now())
		}
		if b.stop(l) {
			return
		}
		calls := b.take()
		b.mu.Unlock()
		items := buf[:0]
		sent := calls[:0]
		for _, c := range calls {
			if c.state.CompareAndSwap(callWaiting, callTaken) {
				items = append(items, c.items...)
				sent = append(sent, c)
			}
		}
		if len(items) > 0 {
			b.s.enqueueNow(ctx, items, l)
		}
		last = len(items)
		clear(items)
		buf = items[:0]
		for _, c := range sent {
			c.done <- struct{}{}
		}
		b.linger(len(sent))
	}
}

// done gives back the connection lease l holds, as release (through the
// test hook when one is set). A nil lease holds none.
func (b *batcher) done(l *lease) {
	if l == nil || l.conn == nil {
		return
	}
	if h := b.s.leaseGiveBack.Load(); h != nil {
		(*h)(l.release)
		return
	}
	l.release()
}

// lead returns the lease of a leading call's round trip: the parked one
// while it is fresh (parked no longer than the store's spareIdle ago),
// else a new one, after giving the parked one back.
func (b *batcher) lead() *lease {
	l := b.s.spare.take()
	if l != nil && time.Since(l.parked) <= b.s.spareIdle {
		return l
	}
	b.done(l)
	return b.s.newLease()
}

// coalesceLinger bounds how long the flusher waits for the callers it just
// answered to come back with their next call.
const coalesceLinger = 50 * time.Microsecond

// linger lets the callers just answered run before the next round trip is
// taken: busy producers enqueue again at once, and their next calls then
// join the queued ones in one round trip instead of alternating small and
// large batches. It yields until as many calls are queued as were answered,
// or for coalesceLinger at most; it only runs while calls keep coming.
func (b *batcher) linger(answered int) {
	deadline := time.Now().Add(coalesceLinger)
	for {
		b.mu.Lock()
		queued := len(b.queue)
		b.mu.Unlock()
		if queued >= answered || time.Now().After(deadline) {
			return
		}
		runtime.Gosched()
	}
}

// take removes from the queue the calls of the next round trip: at least
// one, then more while their jobs fit CoalesceMaxJobs. b.mu must be held.
func (b *batcher) take() []*batchCall {
	n, jobs := 0, 0
	for n < len(b.queue) && (n == 0 || jobs+len(b.queue[n].items) <= b.s.opts.CoalesceMaxJobs) {
		jobs += len(b.queue[n].items)
		n++
	}
	calls := b.queue[:n:n]
	b.queue = b.queue[n:]
	if len(b.queue) == 0 {
		b.queue = nil
	}
	return calls
}
