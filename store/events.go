package store

import (
	"context"
	"time"
)

// EventType names a change in a job's life.
type EventType string

// The events of a job's life, each emitted by the store in the same atomic
// step as the transition it reports, so an event is never emitted for a
// move that did not happen, nor missed for one that did. Other systems
// call them added/waiting (enqueued), delayed→waiting (promoted), active
// (started), completed (succeeded), failed (retried, dead), discarded
// (dead).
const (
	// EventEnqueued: the job was stored (Enqueue), in pending or ready.
	EventEnqueued EventType = "enqueued"
	// EventPromoted: a pending or retry job fell due and moved to ready
	// (Maintain).
	EventPromoted EventType = "promoted"
	// EventStarted: a worker claimed the job for an attempt (Claim).
	EventStarted EventType = "started"
	// EventProgress: the running attempt reported progress or a log line
	// (Extend).
	EventProgress EventType = "progress"
	// EventSucceeded: the job was acked.
	EventSucceeded EventType = "succeeded"
	// EventRetried: the attempt failed and the job waits in retry; also
	// when Maintain reclaims an expired lease with attempts left.
	EventRetried EventType = "retried"
	// EventDead: the job moved to garbage (retries used up, permanent
	// failure, an expired lease on its last attempt).
	EventDead EventType = "dead"
	// EventCancelled: the job moved to garbage cancelled (Cancel of a
	// waiting job, or the end of a running one that was cancelled).
	EventCancelled EventType = "cancelled"
	// EventSnoozed: the attempt asked to run later; the job is pending.
	EventSnoozed EventType = "snoozed"
	// EventReleased: a stopping worker handed the job back to ready.
	EventReleased EventType = "released"
	// EventRequeued: an operator moved the job back to ready (Requeue).
	EventRequeued EventType = "requeued"
	// EventDeleted: an operator deleted the job (Delete).
	EventDeleted EventType = "deleted"
)

// Event is one change in a job's life, as a store's event stream keeps it
// (hopper's Client.Subscribe reads it): its Type, the job's Queue, ID and
// Kind, the store's time, the attempt, and details by type. Pos is its
// position: subscribing from it resumes after it.
type Event struct {
	// Type says what happened.
	Type EventType
	// Queue, ID and Kind name the job.
	Queue string
	ID    string
	Kind  string
	// At is when it happened, on the store's clock.
	At time.Time
	// Attempt is the job's attempt count after the change (started: the
	// attempt that starts).
	Attempt int
	// Worker names the process that claimed the job (started).
	Worker string
	// Error is the error of a failed attempt (retried, dead, cancelled).
	Error string
	// State is where the job went (enqueued: pending or ready).
	State JobState
	// Progress is the attempt's latest progress (progress).
	Progress *Progress
	// Pos is the event's position in its queue's stream: reading after it
	// returns the events that came later. Its format is the store's
	// (memstore and redisstore: EventPos, "<generation>:" of the stream,
	// the number of the store step that emitted the event, and "/<index>"
	// unless it was the step's last event); do not compare positions,
	// read after them.
	Pos string
}

// DefaultEventsMaxLen is QueueConfig.EventsMaxLen when zero.
const DefaultEventsMaxLen = 1000

// Positions a subscription can start from, besides a position an event
// carried.
const (
	// FromStart reads a queue's stream from its oldest event kept; it
	// never reports events lost.
	FromStart = "-"
	// FromNow reads the events that come after the read starts.
	FromNow = "$"
)

// EventReader is implemented by stores that keep an event stream per queue.
// hopper.Subscribe reads it.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type EventReader interface {
	// ReadEvents returns up to max events of the queues in from, each
	// after the position from names for its queue (a Pos, FromStart or
	// FromNow), in each queue's order, and the position to read each
	// queue from next (FromNow resolved to the stream's end). When no
	// event is there it blocks up to block (zero: not at all) and then
	// returns none, or returns ctx's error when ctx ends first. A
	// position older than the oldest event kept (the stream was trimmed
	// past it) returns the events from the oldest on, and the queue in
	// lost: some events were missed. A store may write a queue's events
	// only while someone reads them (redisstore: while a ReadEvents of the
	// queue came in the last minute): a position from before such a gap
	// returns the events written after it, and the queue in lost; a read
	// from FromNow or FromStart then reports nothing lost. A queue whose
	// events are off, or that has none, returns none. max below 1 or a position the store did not
	// write gives an error wrapping ErrInvalidConfig, a bad queue name one
	// wrapping ErrInvalidQueue. With any error, next holds none or some
	// of the positions, as from had them or resolved from FromNow, never
	// past an event not returned: a caller reads again from them.
	ReadEvents(ctx context.Context, from map[string]string, max int, block time.Duration) (events []Event, next map[string]string, lost []string, err error)
}

// JobWaiter is implemented by stores that can tell a caller when a job
// ends without polling. hopper.Client.WaitJob uses it.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type JobWaiter interface {
	// WatchJob starts watching the job and returns once the watch is in
	// place: from then on the job's end cannot be missed. The channel
	// receives one JobEnd and is closed: when the job ends (acked, dead,
	// cancelled or deleted), or at once for a job that has ended already
	// and is kept (in done or garbage), or with ctx's error when ctx ends
	// first. A job requeued after it ended needs a new watch. A job the
	// queue does not hold (never enqueued, or ended and not kept) gives an
	// error wrapping ErrJobNotFound, an invalid queue or ID one wrapping
	// ErrInvalidQueue or ErrInvalidJob.
	WatchJob(ctx context.Context, queue, id string) (<-chan JobEnd, error)
}

// JobEnd is how a watched job ended.
type JobEnd struct {
	// Job is the job as it ended, nil when Err is set. It has at least
	// its ID, Queue, Kind, State (StateDone or StateGarbage), Attempt,
	// FinishedAt, Cancelled, the Result of an ack and, for a death, the
	// last error in Errors; a store may give the whole record (memstore
	// does; redisstore does for a job that had ended when the watch
	// began).
	Job *JobRecord
	// Err wraps ErrJobNotFound when the job was deleted, or is ctx's error
	// when the watch's context ended first.
	Err error
}
