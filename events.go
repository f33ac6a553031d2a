package hopper

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"time"

	"github.com/hopperq/hopper/store"
)

// Event is store.Event.
type Event = store.Event

// EventType is store.EventType.
type EventType = store.EventType

// The event types (store.EventType).
const (
	EventEnqueued  = store.EventEnqueued
	EventPromoted  = store.EventPromoted
	EventStarted   = store.EventStarted
	EventProgress  = store.EventProgress
	EventSucceeded = store.EventSucceeded
	EventRetried   = store.EventRetried
	EventDead      = store.EventDead
	EventCancelled = store.EventCancelled
	EventSnoozed   = store.EventSnoozed
	EventReleased  = store.EventReleased
	EventRequeued  = store.EventRequeued
	EventDeleted   = store.EventDeleted
)

// Where a subscription starts in a queue's stream, besides an Event's Pos.
const (
	// FromStart reads from the oldest event the store still keeps.
	FromStart = store.FromStart
	// FromNow reads the events that come after the subscription starts.
	FromNow = store.FromNow
)

// SubscribeOpts configures Client.Subscribe. A nil *SubscribeOpts
// means defaults.
type SubscribeOpts struct {
	// From is where to resume each queue: the Pos of the last event read
	// from it. Queues not in From start at Start.
	From map[string]string
	// Start is where queues not in From start: FromNow or FromStart.
	// Defaults to FromNow.
	Start string
	// Batch is how many events one read from the store asks for at most.
	// Defaults to 500.
	Batch int
}

// subscribeBlock is how long one read waits for events before it reads
// again.
const subscribeBlock = 10 * time.Second

// Subscribe returns the events of queues, each queue's in order, from
// where opts says, as an iterator. It waits for new events without
// polling (on Redis, a capped stream per queue and a pub/sub wake-up) and
// ends when ctx is done or the loop breaks. To resume after a restart,
// keep the Pos of the last event handled for each queue and pass them as
// SubscribeOpts.From: no event still in the stream is missed or seen
// twice.
//
// Errors are yielded with a zero Event, and the iterator goes on unless
// the loop breaks: ErrEventsLost (Event.Queue names the queue) when the
// subscription fell behind its stream; a store error, after which it tries
// again with a backoff (up to 5 s). Bad input (an invalid queue name or
// position, a nil Client: ErrInvalidConfig), a store that keeps no events
// (ErrNotSupported) and a store that cannot serve a call again (closed
// for good, as redisstore.ErrClientClosed says when its go-redis client
// was closed, or refusing every call until an operator acts: see
// Worker.Run) are yielded once and end it.
//
// The events of queues nobody reads cost the Redis store nothing
// measurable: it writes a queue's events only while someone read them in
// the last minute, so a subscription starting FromStart on a queue nobody
// read sees none of what came before it, and one that resumes after more
// than a minute away gets ErrEventsLost (see events-and-wait.md); the
// in-memory store keeps them all, up to QueueConfig.EventsMaxLen. A
// subscription costs one store call per batch of events, and nothing
// while none come.
func (c *Client) Subscribe(ctx context.Context, queues []string, opts *SubscribeOpts) iter.Seq2[Event, error] {
	var o SubscribeOpts
	if opts != nil {
		o = *opts
	}
	return func(yield func(Event, error) bool) {
		if c.unmade() {
			yield(Event{}, errNilClient)
			return
		}
		r, ok := store.As[store.EventReader](c.st)
		if !ok {
			yield(Event{}, fmt.Errorf("%w: the store (%T) keeps no events", ErrNotSupported, c.st))
			return
		}
		from, err := subscribeFrom(queues, o)
		if err != nil {
			yield(Event{}, err)
			return
		}
		batch := o.Batch
		if batch <= 0 {
			batch = 500
		}
		fails := 0
		for ctx.Err() == nil {
			evs, next, lost, err := r.ReadEvents(ctx, from, batch, subscribeBlock)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				// The positions the store took before it failed (FromNow
				// made a position): read again from them, not from a new
				// now, which would skip what came in between.
				maps.Copy(from, next)
				if !yield(Event{}, err) || permanent(err) {
					return
				}
				fails++
				sleep(ctx, min(5*time.Second, time.Duration(1<<min(fails, 9))*10*time.Millisecond))
				continue
			}
			fails = 0
			for _, q := range lost {
				if !yield(Event{Queue: q}, fmt.Errorf("%w: queue %q", ErrEventsLost, q)) {
					return
				}
			}
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
			from = next
		}
	}
}

// subscribeFrom returns the starting position of every queue.
func subscribeFrom(queues []string, o SubscribeOpts) (map[string]string, error) {
	if len(queues) == 0 {
		return nil, fmt.Errorf("%w: Subscribe to no queue", ErrInvalidConfig)
	}
	start := o.Start
	switch start {
	case "":
		start = FromNow
	case FromNow, FromStart:
	default:
		return nil, fmt.Errorf("%w: SubscribeOpts.Start %q, want FromNow or FromStart", ErrInvalidConfig, start)
	}
	from := make(map[string]string, len(queues))
	for _, q := range queues {
		if err := store.ValidateQueue(q); err != nil {
			return nil, err
		}
		from[q] = start
		if p, ok := o.From[q]; ok {
			from[q] = p
		}
	}
	return from, nil
}

// permanent reports whether a store error is about the request, so that
// asking again cannot help.
func permanent(err error) bool {
	return errors.Is(err, ErrInvalidConfig) || errors.Is(err, ErrInvalidQueue) || storeClosed(err)
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
