package memstore

import (
	"context"
	"reflect"
	"time"

	"github.com/hopperq/hopper/store"
)

// Waiting works with one broadcast channel per queue and purpose, closed and
// forgotten on each signal; a waiter takes the current channel (making it if
// none) under the queue's lock. Both waits first look, under that same lock,
// at what they wait for, so that a signal sent before the call is never
// lost: WaitReady returns at once when a Claim could take a job now, and
// WaitSchedule sleeps no longer than until the queue's next due time.

// signalReady wakes WaitReady callers on q. q.mu must be held.
func (q *queue) signalReady() {
	if q.readyWait != nil {
		close(q.readyWait)
		q.readyWait = nil
	}
}

// signalSchedule wakes WaitSchedule callers on q. q.mu must be held.
func (q *queue) signalSchedule() {
	if q.schedWait != nil {
		close(q.schedWait)
		q.schedWait = nil
	}
}

// WaitReady blocks until a job may have become claimable in one of queues,
// until timeout passes or until ctx is done, and returns nil in all three
// cases. It returns at once when a Claim on one of queues could take a job
// now (ready, not paused, under its limits), so a job that became ready
// between a caller's empty Claim and this call is not missed. Otherwise it
// wakes on any job reaching ready (enqueue, promotion, release, requeue), on
// a config change and on a job leaving unack while MaxRunning held jobs
// back, and sleeps no longer than the rate window that holds jobs back;
// wakeups may be spurious. A timeout of zero or less returns at once.
// An invalid queue name gives an error wrapping store.ErrInvalidQueue.
func (s *Store) WaitReady(ctx context.Context, queues []string, timeout time.Duration) error {
	return s.waitOn(ctx, queues, timeout, func(q *queue, nowMs int64, timeout *time.Duration) (bool, *chan struct{}) {
		if n, _ := q.claimable(nowMs, 1); n > 0 {
			return true, nil
		}
		if q.ready.n > 0 && !q.cfg.Paused && q.cfg.RateLimit > 0 {
			// Only time frees a rate window: sleep no longer than it.
			if room, endMs := q.rateRoom(nowMs); room <= 0 {
				*timeout = min(*timeout, untilMs(nowMs, endMs))
			}
		}
		return false, &q.readyWait
	})
}

// WaitSchedule blocks until the next due time in one of queues may have moved
// earlier, until that due time or timeout passes, or until ctx is done, and
// returns nil in all these cases. The due times it knows are those of
// pending and retry jobs, lease deadlines, and done expiries; it returns at
// once when one of them is already due. It wakes when a job becomes the
// earliest of its state (a delayed enqueue, a retry, a snooze, a claim on an
// idle queue, a shortened lease, a first done or garbage job); wakeups may be
// spurious. Garbage age limits are the caller's to time (Maintain's NextIn).
// A timeout of zero or less returns at once. An invalid queue name gives an
// error wrapping store.ErrInvalidQueue.
func (s *Store) WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) error {
	return s.waitOn(ctx, queues, timeout, func(q *queue, nowMs int64, timeout *time.Duration) (bool, *chan struct{}) {
		if at, ok := q.nextEvent(0); ok {
			if at <= nowMs {
				return true, nil
			}
			*timeout = min(*timeout, untilMs(nowMs, at))
		}
		return false, &q.schedWait
	})
}

// waitOn is WaitReady and WaitSchedule: it validates queues, then asks
// probe, under each queue's lock, whether to return at once; otherwise
// probe may shorten timeout and names the queue's wake channel, which
// waitOn creates when missing and waits on with the others.
func (s *Store) waitOn(ctx context.Context, queues []string, timeout time.Duration,
	probe func(q *queue, nowMs int64, timeout *time.Duration) (now bool, wake *chan struct{})) error {
	if err := store.ValidateQueues(queues); err != nil {
		return err
	}
	if ctx.Err() != nil || timeout <= 0 {
		return nil
	}
	_, nowMs := s.now()
	var buf [4]<-chan struct{}
	chans := buf[:0]
	for _, name := range queues {
		q := s.queue(name, false)
		q.mu.Lock()
		now, wake := probe(q, nowMs, &timeout)
		if now {
			q.mu.Unlock()
			return nil
		}
		if *wake == nil {
			*wake = make(chan struct{})
		}
		chans = append(chans, *wake)
		q.mu.Unlock()
	}
	wait(ctx, chans, timeout)
	return nil
}

// wait blocks until one of chans is closed, timeout passes or ctx is done.
func wait(ctx context.Context, chans []<-chan struct{}, timeout time.Duration) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	switch len(chans) {
	case 0:
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	case 1:
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-chans[0]:
		}
	default:
		cases := make([]reflect.SelectCase, 0, len(chans)+2)
		cases = append(cases,
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(t.C)})
		for _, c := range chans {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)})
		}
		reflect.Select(cases)
	}
}
