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
// store.JobWaiter). An acked job not kept in done ends as the message
// described it: State StateDone, FinishedAt the time the message came and
// the Result the worker sent; a kept job is read with GetJob. A watch holds
// one goroutine until it ends.
func (s *Store) WatchJob(ctx context.Context, queue, id string) (<-chan store.JobEnd, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if err := store.ValidateID(id); err != nil {
		return nil, err
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	key := queue + "\x00" + id
	// The subscription is made before the script registers the waiter,
	// so that the message cannot come first; the first wait on a key
	// returns it at once, and messages from then on reach this watch.
	if err := s.watch.waitLive(ctx); err != nil {
		return nil, err
	}
	if _, err := s.watch.wait(ctx, kindDone, []string{key}, 0); err != nil {
		return nil, err
	}
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
		ch <- s.awaitEnd(ctx, queue, id, key)
	}()
	return ch, nil
}

// registerWait puts the job in its queue's waited set unless it has
// ended, which it reports; a job the queue does not hold is an error.
func (s *Store) registerWait(ctx context.Context, queue, id string) (ended bool, err error) {
	st, err := s.run(ctx, scriptWaitJob, s.queueKeys(queue).waitKeys, id).Int()
	switch {
	case err != nil:
		return false, wrap("watch job "+strconv.Quote(id), err)
	case st == 0:
		return false, fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	return st == 1, nil
}

// awaitEnd waits for the done message of a registered job.
func (s *Store) awaitEnd(ctx context.Context, queue, id, key string) store.JobEnd {
	keys := []string{key}
	for {
		got, payloads, err := s.watch.waitPayloads(ctx, kindDone, keys, time.Hour)
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
			got = keys
		}
		if p := payloads[key]; p != "" {
			rec, err := s.endedJob(ctx, queue, id, p)
			return store.JobEnd{Job: rec, Err: err}
		}
		if len(got) == 0 {
			continue // an hour without news; keep waiting
		}
		// The subscription came back, and the message may have been
		// missed: look again.
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
				return store.JobEnd{Err: err}
			}
			sleepCtx(ctx, time.Second) // the server is unreachable: try again
		}
	}
}

// endedJob returns the record of a job that ended, as the done message msg
// tells it ("" when the job was found ended in a store).
func (s *Store) endedJob(ctx context.Context, queue, id, msg string) (*store.JobRecord, error) {
	var state, result string
	if msg != "" {
		_, _, state, result = decodeDone(msg)
		if state == "deleted" {
			return nil, fmt.Errorf("%w: job %q of queue %q was deleted", store.ErrJobNotFound, id, queue)
		}
	}
	rec, err := s.GetJob(ctx, queue, id)
	if err == nil || msg == "" || state != string(store.StateDone) {
		return rec, err
	}
	// Acked and not kept: the message is all there is.
	rec = &store.JobRecord{ID: id, Queue: queue, State: store.StateDone, FinishedAt: time.Now().Truncate(time.Millisecond)}
	if result != "" {
		rec.Result = []byte(result)
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
	q, id, _, _ := decodeDone(msg)
	return q + "\x00" + id, msg
}

// decodeDone decodes a done message: cmsgpack's [queue, id, state,
// result].
func decodeDone(msg string) (queue, id, state, result string) {
	r := reader{s: msg}
	if r.arrayLen() < 4 {
		return "", "", "", ""
	}
	return r.bytes(), r.bytes(), r.bytes(), r.bytes()
}
