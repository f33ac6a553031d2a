package memstore

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
)

// Waiting. Each queue has two signals, ready and schedule, each a flag
// that is raised when something happens (a job made ready, an earlier due
// time) and lowered when a waiter takes it. A waiter first takes the
// raised flags of its queues and returns them at once, so a signal raised
// while nobody waited is not lost; otherwise it registers with the store's
// hub for that kind of signal and blocks. Raising a flag that is already
// raised costs one atomic operation, and the hub is only locked when a
// flag goes up, so a busy queue signals for free.

// signal is one queue's flag of one kind.
type signal struct {
	raised atomic.Bool
	queue  string
	hub    *hub
}

// raise raises the flag and, when it was down, tells the waiters on the
// queue. It may be called with the queue's lock held.
func (s *signal) raise() {
	if !s.raised.Swap(true) {
		s.hub.raised(s)
	}
}

// hub is a Store's registry of waiters of one kind.
type hub struct {
	mu      sync.Mutex
	waiters map[*waiter]struct{}
}

// waiter is one blocked WaitReady or WaitSchedule call.
type waiter struct {
	queues map[string]*signal
	got    []string
	wake   chan struct{} // one slot: the waiter has something
}

// raised hands a newly raised flag to the waiters on its queue, lowering
// it again when one of them takes it.
func (h *hub) raised(s *signal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delivered := false
	for w := range h.waiters {
		if w.queues[s.queue] != s {
			continue
		}
		if !slices.Contains(w.got, s.queue) {
			w.got = append(w.got, s.queue)
		}
		select {
		case w.wake <- struct{}{}:
		default:
		}
		delivered = true
	}
	if delivered {
		s.raised.Store(false) // taken by the waiters
	}
}

// wait is WaitReady and WaitSchedule for the signals sigs (one per queue):
// it returns the queues whose flags were raised, taking them, or blocks
// until one is raised, timeout passes or ctx is done. When ctx ends before
// the caller could act on what it took, the flags go back up.
func (h *hub) wait(ctx context.Context, sigs []*signal, timeout time.Duration) []string {
	var got []string
	for _, s := range sigs {
		if s.raised.Swap(false) {
			got = append(got, s.queue)
		}
	}
	if len(got) > 0 || timeout <= 0 || ctx.Err() != nil {
		return h.keep(ctx, sigs, got)
	}
	w := &waiter{queues: make(map[string]*signal, len(sigs)), wake: make(chan struct{}, 1)}
	for _, s := range sigs {
		w.queues[s.queue] = s
	}
	h.mu.Lock()
	// A flag raised between the first look and now went to no waiter:
	// look again under the lock that raised takes.
	for _, s := range sigs {
		if s.raised.Swap(false) {
			w.got = append(w.got, s.queue)
		}
	}
	if len(w.got) > 0 {
		h.mu.Unlock()
		return h.keep(ctx, sigs, w.got)
	}
	if h.waiters == nil {
		h.waiters = make(map[*waiter]struct{})
	}
	h.waiters[w] = struct{}{}
	h.mu.Unlock()

	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-w.wake:
	}
	h.mu.Lock()
	delete(h.waiters, w)
	got = w.got
	h.mu.Unlock()
	return h.keep(ctx, sigs, got)
}

// keep returns got, or puts its flags back up and returns nil when ctx is
// done (the caller will not claim).
func (h *hub) keep(ctx context.Context, sigs []*signal, got []string) []string {
	if ctx.Err() == nil {
		return got
	}
	for _, s := range sigs {
		if slices.Contains(got, s.queue) {
			s.raise()
		}
	}
	return nil
}

// WaitReady blocks until jobs may have become claimable in some of queues
// (see store.Store), until timeout passes or until ctx is done, and
// returns those queues. A queue is signalled when a job reaches its ready
// list (enqueue, promotion, release, requeue), when its config changes,
// and when a job leaves unack while a MaxRunning cap holds ready jobs
// back; a Store starts with every queue signalled. Time alone does not
// signal: a caller held back by a rate limit waits for Claim's RetryIn.
// A timeout of zero or less returns at once. An invalid queue name gives
// an error wrapping store.ErrInvalidQueue.
func (s *Store) WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	return s.waitOn(ctx, queues, timeout, &s.readyHub, func(q *queue) *signal { return &q.readySig })
}

// WaitSchedule blocks until the next due time of some of queues may have
// moved earlier (see store.Store), until timeout passes or until ctx is
// done, and returns those queues. A queue is signalled when a job becomes
// the earliest of its pending, retry, unack, done or garbage set (a
// delayed enqueue, a retry, a snooze, a claim on an idle queue, a
// shortened lease, a first done or garbage job); a Store starts with every
// queue signalled. A timeout of zero or less returns at once. An invalid
// queue name gives an error wrapping store.ErrInvalidQueue.
func (s *Store) WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	return s.waitOn(ctx, queues, timeout, &s.schedHub, func(q *queue) *signal { return &q.schedSig })
}

// waitOn validates queues and waits on their signals of one kind.
func (s *Store) waitOn(ctx context.Context, queues []string, timeout time.Duration, h *hub, sig func(*queue) *signal) ([]string, error) {
	if err := store.ValidateQueues(queues); err != nil {
		return nil, err
	}
	sigs := make([]*signal, len(queues))
	for i, name := range queues {
		sigs[i] = sig(s.queue(name, false))
	}
	return h.wait(ctx, sigs, timeout), nil
}

// signalReady raises q's ready signal.
func (q *queue) signalReady() { q.readySig.raise() }

// signalSchedule raises q's schedule signal.
func (q *queue) signalSchedule() { q.schedSig.raise() }
