package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

var _ store.EventReader = (*Store)(nil)

// Events. Every script that moves jobs writes the events of its moves as
// one entry of the queue's stream {p:q}:ev, in the same script
// (lib_events.lua): an event is emitted exactly when its transition
// happens. Entries are numbered without gaps ("1-0", "1-1", ...), so a
// reader knows whether the stream was trimmed past its position; the mark
// evg is the stream's generation (events.lua), which tells a stream that
// started over from the one a position was taken in. A position is
// "<gen>:" and the entry's number (the entry with ID "1-k" is k+1) for the
// last event of an entry, "<gen>:<number>/<index>" for the others; number
// 0 is before the first entry (store.EventPos).
//
// A reader with nothing to read asks the queue's scripts to publish on
// "<prefix>:ev" while it waits (events_arm.lua) and waits on the Store's
// watch subscription, so neither a reader nor a queue without readers
// polls. Entries are written only while someone reads them (see
// events_interest.go): a queue that nobody reads costs one comparison per
// script and keeps no stream (the one it had expires ten minutes after the
// first step that wrote no entry, events.lua).

// eventTypes maps the scripts' event codes to types.
var eventTypes = [...]store.EventType{
	1: store.EventEnqueued, 2: store.EventPromoted, 3: store.EventStarted, 4: store.EventProgress,
	5: store.EventSucceeded, 6: store.EventRetried, 7: store.EventDead, 8: store.EventCancelled,
	9: store.EventSnoozed, 10: store.EventReleased, 11: store.EventRequeued, 12: store.EventDeleted,
}

// evPos is a parsed position (store.EventPos): the stream's generation,
// the entry's number, and the index of the last event read in it when it
// was read only in part; start is FromStart.
type evPos = store.EventPos

// ReadEvents returns events of the queues in from after the positions it
// names (see store.EventReader). One read script per queue, pipelined in
// one round trip; when none has events and block is positive, it waits for
// a script to publish that one of the queues has new events.
func (s *Store) ReadEvents(ctx context.Context, from map[string]string, max int, block time.Duration) (_ []store.Event, _ map[string]string, _ []string, err error) {
	defer func() { err = s.closedCheck(ctx, err) }() // a closed client is final for a subscriber too
	if max < 1 {
		return nil, nil, nil, fmt.Errorf("%w: ReadEvents max %d must be at least 1", store.ErrInvalidConfig, max)
	}
	queues := make([]string, 0, len(from))
	pos := make(map[string]evPos, len(from))
	now := false
	for q, p := range from {
		if err := store.ValidateQueue(q); err != nil {
			return nil, nil, nil, err
		}
		queues = append(queues, q)
		if p == store.FromNow {
			now = true
			continue
		}
		ep, err := store.ParseEventPos(p)
		if err != nil {
			return nil, nil, nil, err
		}
		pos[q] = ep
	}
	if err := s.begin(ctx, queues...); err != nil {
		return nil, nil, nil, err
	}
	for _, q := range queues {
		if err := s.refuseWhole(q, "read the events of its partitions"); err != nil {
			return nil, nil, nil, err
		}
	}
	// Before the first look: what happens from now on is written, and a
	// position taken now stands after any hole of steps nobody read.
	if err := s.wantEvents(ctx, queues); err != nil {
		return nil, nil, nil, err
	}
	if now {
		if err := s.resolveNow(ctx, from, pos); err != nil {
			return nil, nil, nil, err
		}
	}
	deadline := time.Now().Add(block)
	var armedUntil time.Time
	for {
		if err := ctx.Err(); err != nil {
			return nil, formatPositions(pos), nil, err
		}
		// The signals counted before the read: one that comes after it
		// ends the wait below, even if another reader of this process
		// took it meanwhile.
		var snap []uint64
		if block > 0 {
			snap = s.watch.seqs(kindEvents, queues)
		}
		evs, lost, err := s.readEvents(ctx, queues, pos, max)
		if err != nil || len(evs) > 0 || len(lost) > 0 {
			return evs, formatPositions(pos), lost, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, formatPositions(pos), nil, nil
		}
		if armedUntil.Before(deadline) {
			// Ask for a message before looking once more: an entry
			// written between the read and the arming is seen now, one
			// written after publishes.
			if err := s.armEvents(ctx, queues, left); err != nil {
				return nil, formatPositions(pos), nil, err
			}
			armedUntil = deadline
			continue
		}
		if _, err := s.watch.waitSince(ctx, kindEvents, queues, snap, left); err != nil {
			return nil, formatPositions(pos), nil, err
		}
	}
}

// resolveNow sets the position of every queue of from at FromNow to the
// end of its stream.
func (s *Store) resolveNow(ctx context.Context, from map[string]string, pos map[string]evPos) error {
	var calls []*evalCall
	var names []string
	for q, p := range from {
		if p != store.FromNow {
			continue
		}
		names = append(names, q)
		calls = append(calls, s.queueCall(fullScript("events_read"), q, 0, "s", 0))
	}
	s.runAll(ctx, calls, nil)
	for i, c := range calls {
		v, err := c.cmd.Slice()
		if err == nil && len(v) < 2 {
			err = fmt.Errorf("unexpected reply of %d values", len(v))
		}
		if err != nil {
			s.observe(err)
			return wrap("read events of "+strconv.Quote(names[i]), err)
		}
		last, _ := v[1].(int64)
		pos[names[i]] = evPos{Gen: replyGen(v), Entry: uint64(max(last, 0)), Whole: true}
	}
	return nil
}

// readEvents reads up to max events after pos of every queue, in one
// round trip, moving pos past what it returns. On an error it returns
// none and leaves pos as it was: a caller that keeps pos reads them
// again.
func (s *Store) readEvents(ctx context.Context, queues []string, pos map[string]evPos, max int) ([]store.Event, []string, error) {
	calls := make([]*evalCall, len(queues))
	for i, q := range queues {
		p := pos[q]
		mode := "0"
		switch {
		case p.Start:
			mode = "s"
		case p.Whole:
			mode = "1"
		}
		gen := ""
		if p.Gen != 0 {
			gen = strconv.FormatUint(p.Gen, 10)
		}
		calls[i] = s.queueCall(fullScript("events_read"), q, strconv.FormatUint(p.Entry, 10), mode, max, gen)
	}
	s.runAll(ctx, calls, nil)
	var evs []store.Event
	var lost []string
	moved := make([]evPos, len(queues)) // pos of each queue once read, set at the end
	for i, q := range queues {
		v, err := calls[i].cmd.Slice()
		if err == nil && len(v) < 3 {
			err = fmt.Errorf("unexpected reply of %d values", len(v))
		}
		if err != nil {
			s.observe(err)
			return nil, nil, wrap("read events of "+strconv.Quote(q), err)
		}
		p := pos[q]
		gen := replyGen(v)
		if l, _ := v[0].(int64); l == 1 {
			lost = append(lost, q)
			// Told once: the next read goes on from the stream's start.
			p = evPos{Gen: gen, Whole: true}
		}
		for _, e := range v[3:] {
			if len(evs) >= max {
				break
			}
			entry, err := decodeEntry(q, gen, e)
			if err != nil {
				return nil, nil, wrap("read events of "+strconv.Quote(q), err)
			}
			for j, ev := range entry.events {
				if entry.n == p.Entry && !p.Whole && j <= p.Index {
					continue // read before
				}
				if len(evs) >= max {
					break
				}
				evs = append(evs, ev)
				p = evPos{Gen: entry.gen, Entry: entry.n, Index: j, Whole: j == len(entry.events)-1}
			}
			if len(evs) < max {
				p = evPos{Gen: entry.gen, Entry: entry.n, Whole: true} // read to its end
			}
		}
		moved[i] = p
	}
	for i, q := range queues {
		pos[q] = moved[i]
	}
	return evs, lost, nil
}

// formatPositions returns pos as ReadEvents' next map.
func formatPositions(pos map[string]evPos) map[string]string {
	out := make(map[string]string, len(pos))
	for q, p := range pos {
		out[q] = p.String()
	}
	return out
}

// armEvents asks the scripts of queues to publish new events for d, and
// to write them for eventsInterest at least.
func (s *Store) armEvents(ctx context.Context, queues []string, d time.Duration) error {
	// A little longer than the wait: a reader that reads again at once
	// need not arm again.
	ms := (d + time.Second).Milliseconds()
	if d <= 0 {
		ms = 0
	}
	calls := make([]*evalCall, len(queues))
	for i, q := range queues {
		calls[i] = s.queueCall(fullScript("events_arm"), q, ms, eventsInterest.Milliseconds())
	}
	s.runAll(ctx, calls, nil)
	for i, c := range calls {
		if err := c.cmd.Err(); err != nil {
			s.observe(err)
			return wrap("watch events of "+strconv.Quote(queues[i]), err)
		}
	}
	return nil
}

// replyGen returns the stream's generation in an events_read reply
// ({lost, last, gen, ...}): 0 before the stream's first entry.
func replyGen(v []any) uint64 {
	g, _ := v[2].(string)
	n, _ := strconv.ParseUint(g, 10, 64)
	return n
}

// streamEntry is one decoded entry of a queue's stream.
type streamEntry struct {
	gen    uint64
	n      uint64
	events []store.Event
}

// decodeEntry decodes one entry as XRANGE returns it: {id, {field, value,
// ...}} (the columns lib_events.lua writes), of the stream of generation
// gen (0: none known).
func decodeEntry(queue string, gen uint64, e any) (streamEntry, error) {
	parts, _ := e.([]any)
	if len(parts) != 2 {
		return streamEntry{}, errCorrupt
	}
	id, _ := parts[0].(string)
	seq, ok := strings.CutPrefix(id, "1-")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil {
		return streamEntry{}, fmt.Errorf("%w: event entry ID %q", errCorrupt, id)
	}
	n++
	fields, _ := parts[1].([]any)
	f := make(map[string]string, len(fields)/2)
	for i := 0; i+1 < len(fields); i += 2 {
		k, _ := fields[i].(string)
		v, _ := fields[i+1].(string)
		f[k] = v
	}
	bad := func() (streamEntry, error) {
		return streamEntry{}, fmt.Errorf("%w: event entry %q", errCorrupt, id)
	}
	ms, err := strconv.ParseInt(f["t"], 10, 64)
	if err != nil {
		return bad()
	}
	at := time.UnixMilli(ms)
	ids := strings.Split(f["i"], "\n")
	count := len(ids)
	codes, ok1 := column(f, "y", "Y", " ", count)
	kinds, ok2 := column(f, "k", "K", "\n", count)
	atts, ok3 := column(f, "a", "A", " ", count)
	details := make([]string, count)
	switch d, many := f["d"], f["D"]; {
	case many != "":
		r := newReader(many)
		if r.ArrayLen() != count {
			return bad()
		}
		for i := range details {
			details[i] = r.bytes()
		}
		if r.err() != nil {
			return bad()
		}
	case d != "":
		for i := range details {
			details[i] = d
		}
	}
	if !ok1 || !ok2 || !ok3 {
		return bad()
	}
	evs := make([]store.Event, count)
	for i := range evs {
		code, err1 := strconv.Atoi(codes[i])
		att, err2 := strconv.Atoi(atts[i])
		if err1 != nil || err2 != nil || code <= 0 || code >= len(eventTypes) {
			return bad()
		}
		ev := store.Event{Type: eventTypes[code], Queue: queue, ID: ids[i], Kind: kinds[i], At: at,
			Attempt: att, Pos: store.EventPosOf(gen, n, i, count)}
		detail := details[i]
		switch ev.Type {
		case store.EventEnqueued:
			ev.State = store.StateReady
			if detail == "p" {
				ev.State = store.StatePending
			}
		case store.EventStarted:
			ev.Worker = detail
		case store.EventRetried, store.EventDead, store.EventCancelled:
			ev.Error = detail
		case store.EventProgress:
			if detail != "" {
				if ev.Progress, err = decodeProgress(detail); err != nil {
					return bad()
				}
			}
		}
		evs[i] = ev
	}
	return streamEntry{gen: gen, n: n, events: evs}, nil
}

// column returns the count values of an entry's column: the field one,
// the same for every event, or the field many, one per event joined by
// sep. ok is false when neither fits.
func column(f map[string]string, one, many, sep string, count int) ([]string, bool) {
	if v, ok := f[one]; ok {
		out := make([]string, count)
		for i := range out {
			out[i] = v
		}
		return out, true
	}
	v, ok := f[many]
	if !ok {
		return nil, false
	}
	out := strings.Split(v, sep)
	return out, len(out) == count
}
