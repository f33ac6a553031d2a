package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/store"
)

var _ store.JobWaiter = (*Store)(nil)

// Watching a job. WatchJob puts the job's ID in the queue's waited set
// {p:q}:wj, in a script that also checks the job has not ended
// (waitjob.lua); the script that ends a waited job (an ack, a death, a
// cancellation, a deletion) takes it out of the set and publishes on
// "<prefix>:done" the queue, the ID, how it ended and an ack's result
// (lib_events.lua). The waiter listens on the Store's watch subscription,
// which is made before the script runs, so the message cannot come too
// early; after the subscription was lost and made again, every waiter
// checks its job once more. A job nobody waits for costs its script one
// EXISTS.

// WatchJob watches the job until it ends or ctx is done (see
// store.JobWaiter). The job comes back as the end message describes it
// (ID, Queue, Kind, State, Attempt, FinishedAt, Cancelled, the Result of
// an ack, the last error of a death), with no further read; a job that had
// ended when the watch began is read whole with GetJob. A watch holds one
// goroutine until it ends, and without the end message looks at the job
// every watchPoll (5 s): a message that never comes (an ACL user without
// +publish or the channels' rights, a failover) delays it by that much at
// most, and a job that ended meanwhile with no record kept (no
// retention) ends the watch with ErrJobNotFound saying so.
func (s *Store) WatchJob(ctx context.Context, queue, id string) (<-chan store.JobEnd, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if err := store.ValidateID(id); err != nil {
		return nil, err
	}
	if err := s.begin(ctx, queue); err != nil {
		return nil, err
	}
	if parts := s.partNames(queue); parts != nil {
		p, err := s.partHolding(ctx, queue, parts, id)
		if err != nil {
			return nil, err
		}
		return s.WatchJob(ctx, p, id)
	}
	key := queue + "\x00" + id
	// The subscription is made, and the key held, before the script
	// registers the waiter, so that the message cannot come first: from
	// the hold on, the message reaches this watch, even when another watch
	// of the same job takes it while this one is not waiting yet.
	// A subscription the server refuses (an ACL user without the
	// channels' rights) or cannot make yet leaves the watch to its poll
	// (watchPoll): the script below says whether the server answers.
	if err := s.watch.waitLive(ctx); err != nil && ctx.Err() != nil {
		return nil, err
	}
	snap := s.watch.hold(kindDone, key)
	ch := make(chan store.JobEnd, 1)
	ended, err := s.registerWait(ctx, queue, id)
	if err != nil {
		s.watch.forget(kindDone, key)
		return nil, err
	}
	if ended {
		defer s.watch.forget(kindDone, key)
		rec, err := s.endedJob(ctx, queue, id, "")
		if err != nil {
			return nil, err
		}
		ch <- store.JobEnd{Job: rec}
		close(ch)
		return ch, nil
	}
	go func() {
		defer close(ch)
		defer s.watch.forget(kindDone, key)
		ch <- s.awaitEnd(ctx, queue, id, key, snap)
	}()
	return ch, nil
}

// registerWait puts the job in its queue's waited set unless it has
// ended, which it reports; a job the queue does not hold is an error.
func (s *Store) registerWait(ctx context.Context, queue, id string) (ended bool, err error) {
	st, err := s.runQ(ctx, fullScript("waitjob"), queue, id).Int()
	switch {
	case err != nil:
		return false, wrap("watch job "+strconv.Quote(id), err)
	case st == 0:
		return false, fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	return st == 1, nil
}

// watchPoll is how long a watch waits for its job's done message before
// it looks at the job in the store: a message that never comes (an ACL
// user without +publish, whose scripts' PUBLISH fails quietly; a message
// lost while a master failed over) delays the watch by this much at most,
// where it waited an hour. It costs a waiting watch one script call per
// watchPoll. A variable for tests.
var watchPoll = 5 * time.Second

// awaitEnd waits for the done message of a registered job, counting from
// snap (the key's signals when the watch held it), and looks at the job
// every watchPoll without one.
func (s *Store) awaitEnd(ctx context.Context, queue, id, key string, snap uint64) store.JobEnd {
	keys := []string{key}
	for {
		_, payloads, err := s.watch.waitFrom(ctx, kindDone, keys, []uint64{snap}, s.watchPoll)
		if ctx.Err() != nil {
			return store.JobEnd{Err: ctx.Err()}
		}
		if err != nil {
			// The subscription failed (it is being made again): look
			// again after a pause.
			sleepCtx(ctx, time.Second)
			if ctx.Err() != nil {
				return store.JobEnd{Err: ctx.Err()}
			}
		}
		if p := payloads[key]; p != "" {
			rec, err := s.endedJob(ctx, queue, id, p)
			return store.JobEnd{Job: rec, Err: err}
		}
		// Count from here; a message that came since the wait returned
		// is in the notifier's last payload.
		snap = s.watch.seqs(kindDone, keys)[0]
		if p := s.watch.lastPayload(kindDone, key); p != "" {
			rec, err := s.endedJob(ctx, queue, id, p)
			return store.JobEnd{Job: rec, Err: err}
		}
		// The subscription came back, and the message may have been
		// missed, or watchPoll passed without it: look again.
		ended, err := s.registerWait(ctx, queue, id)
		if err != nil || ended {
			if err == nil {
				var rec *store.JobRecord
				rec, err = s.endedJob(ctx, queue, id, "")
				return store.JobEnd{Job: rec, Err: err}
			}
			if ctx.Err() != nil {
				return store.JobEnd{Err: ctx.Err()}
			}
			if errors.Is(err, store.ErrJobNotFound) {
				// It was there when the watch began: it ended, its
				// message did not come, and nothing kept its record.
				return store.JobEnd{Err: fmt.Errorf("%w: job %q of queue %q ended, but its end message never came (no PUBLISH right for the ACL user, or lost in a failover) and its record was not kept (EnqueueOpts.Retention keeps it)",
					store.ErrJobNotFound, id, queue)}
			}
			sleepCtx(ctx, time.Second) // the server is unreachable: try again
		}
	}
}

// endedJob returns the record of a job that ended: as the done message
// msg describes it, or read with GetJob when the job was found ended in
// the store (msg "").
func (s *Store) endedJob(ctx context.Context, queue, id, msg string) (*store.JobRecord, error) {
	if msg == "" {
		return s.GetJob(ctx, queue, id)
	}
	d, err := decodeDone(msg)
	if err != nil {
		return nil, wrap("job end message of "+strconv.Quote(id), err)
	}
	if d.state == "deleted" {
		return nil, fmt.Errorf("%w: job %q of queue %q was deleted", store.ErrJobNotFound, id, queue)
	}
	rec := &store.JobRecord{
		ID: id, Queue: queue, Kind: d.kind, State: store.JobState(d.state), Attempt: d.attempt,
		FinishedAt: time.UnixMilli(d.atMs), Cancelled: d.cancelled,
	}
	if d.result != "" {
		rec.Result = []byte(d.result)
	}
	if d.hist != "" {
		if h, err := decodeHistory(d.hist); err == nil && len(h) > 0 {
			rec.Errors = h
		}
	}
	if rec.Errors == nil && d.err != "" {
		rec.Errors = []store.AttemptError{{At: rec.FinishedAt, Attempt: d.attempt, Error: d.err}}
	}
	return rec, nil
}

// doneKey reads a message of the watch subscription: for kindDone the key
// "<queue>\x00<id>" and the message itself as payload; events messages
// are the queue.
func doneKey(k notifyKind, msg string) (key, payload string) {
	if k != kindDone {
		return msg, ""
	}
	d, _ := decodeDone(msg)
	return d.queue + "\x00" + d.id, msg
}

// doneMsg is a job end message (lib_events.lua publish_end).
type doneMsg struct {
	queue, id, state, result string
	attempt                  int
	kind, err                string
	cancelled                bool
	atMs                     int64
	hist                     string // the error history's blob (errors.lua), or ""
}

// decodeDone decodes a done message: cmsgpack's [queue, id, state, result,
// attempt, kind, error, cancelled, time ms, error history].
func decodeDone(msg string) (doneMsg, error) {
	r := newReader(msg)
	n := r.ArrayLen()
	if n < 9 {
		return doneMsg{}, errCorrupt
	}
	d := doneMsg{queue: r.bytes(), id: r.bytes(), state: r.bytes(), result: r.bytes(), attempt: int(r.int()),
		kind: r.bytes(), err: r.bytes(), cancelled: r.int() == 1, atMs: r.int()}
	if n > 9 {
		d.hist = r.bytes() // absent in a message of a release before it
	}
	for i := 10; i < n; i++ {
		r.Skip()
	}
	if part, _, ok := unsalt(d.queue); ok {
		d.queue = part
	}
	return d, r.err()
}
