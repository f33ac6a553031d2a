package memstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
)

// Events. Every transition of a queue appends its events to the queue's
// open step (q.emit); when the operation lets go of the queue's lock
// (q.unlock), the step becomes one entry of the queue's stream, numbered
// from 1. The position of an entry's last event is the entry's number
// ("12"), of the others the number and the event's index ("12/0"): reading
// after a whole entry skips it, reading after "12/0" returns the rest of
// entry 12 first. Each position starts with the stream's generation
// ("<gen>:", store.EventPos), set when its first entry is written, so that
// a position kept across a process restart or a queue's deletion is told
// from one of the stream that took its place. The stream keeps the last
// EventsMaxLen entries.
// ReadEvents waits for the store's broadcast of a new entry in any queue,
// then reads again.

// eventEntry is one step's events.
type eventEntry struct {
	seq    uint64
	events []store.Event
}

// eventLog is a queue's event stream. Entries are numbered one after
// the other: the k-th kept entry is numbered kept()[0].seq + k.
type eventLog struct {
	entries []eventEntry // oldest first; those before head were trimmed
	head    int
	seq     uint64 // the last entry's number; 0 before any
	gen     uint64 // the stream's generation (newGen); 0 before its first entry
	open    []store.Event
}

// gens hands out generations: the first is the process's start in ms,
// each next one more, so that the streams of a process and those of the
// processes before it (which started earlier) almost surely differ.
var gens atomic.Uint64

func init() { gens.Store(uint64(time.Now().UnixMilli())) }

// newGen returns a generation no other stream of this process has.
func newGen() uint64 { return gens.Add(1) }

// kept returns the entries the stream keeps, oldest first.
func (l *eventLog) kept() []eventEntry { return l.entries[l.head:] }

// trim drops the oldest entries beyond max. A dropped entry's events are
// released at once; the slice moves its kept entries to the front only
// once the dropped ones fill half of it, so that an entry costs O(1)
// however long the stream is (copying the kept entries on every drop
// cost a copy of the whole stream per step once it was full).
func (l *eventLog) trim(max int) {
	drop := len(l.entries) - l.head - max
	if drop <= 0 {
		return
	}
	clear(l.entries[l.head : l.head+drop])
	l.head += drop
	if 2*l.head >= len(l.entries) {
		n := copy(l.entries, l.entries[l.head:])
		clear(l.entries[n:])
		l.entries = l.entries[:n]
		l.head = 0
	}
}

// emit adds an event of job j to the queue's open step and returns it for
// the caller to add details to (valid until the next emit), or nil when
// the queue's events are off. q.mu must be held.
func (q *queue) emit(typ store.EventType, j *job, at time.Time) *store.Event {
	if q.cfg.EventsMaxLen < 0 {
		return nil
	}
	q.events.open = append(q.events.open, store.Event{
		Type: typ, Queue: q.name, ID: j.rec.ID, Kind: j.rec.Kind, At: at, Attempt: j.rec.Attempt,
	})
	return &q.events.open[len(q.events.open)-1]
}

// emitError is emit for an event that reports the job's latest error.
func (q *queue) emitError(typ store.EventType, j *job, at time.Time) {
	if ev := q.emit(typ, j, at); ev != nil && len(j.rec.Errors) > 0 {
		ev.Error = j.rec.Errors[len(j.rec.Errors)-1].Error
	}
}

// unlock closes the queue's open step into an entry of its stream and
// releases q.mu.
func (q *queue) unlock() {
	q.closeStep()
	q.mu.Unlock()
}

// closeStep turns the open step into an entry. q.mu must be held.
func (q *queue) closeStep() {
	l := &q.events
	if len(l.open) == 0 {
		return
	}
	if l.gen == 0 {
		l.gen = newGen()
	}
	l.seq++
	evs := l.open
	l.open = nil
	for i := range evs {
		evs[i].Pos = store.EventPosOf(l.gen, l.seq, i, len(evs))
	}
	l.entries = append(l.entries, eventEntry{seq: l.seq, events: evs})
	max := q.cfg.EventsMaxLen
	if max == 0 {
		max = store.DefaultEventsMaxLen
	}
	l.trim(max)
	q.newEvents.notify()
}

// broadcast wakes every goroutine waiting on it, once per notify.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next notify.
func (b *broadcast) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// notify wakes the goroutines waiting, if any.
func (b *broadcast) notify() {
	b.mu.Lock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	b.mu.Unlock()
}

// ReadEvents returns the events of the queues in from after the positions
// it names (see store.EventReader). Positions are store.EventPos's;
// FromNow reads from the end of the stream as it is now.
func (s *Store) ReadEvents(ctx context.Context, from map[string]string, max int, block time.Duration) ([]store.Event, map[string]string, []string, error) {
	if max < 1 {
		return nil, nil, nil, fmt.Errorf("%w: ReadEvents max %d must be at least 1", store.ErrInvalidConfig, max)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	next := make(map[string]string, len(from))
	queues := make([]string, 0, len(from))
	for name, pos := range from {
		if err := store.ValidateQueue(name); err != nil {
			return nil, nil, nil, err
		}
		if pos == store.FromNow {
			q := s.queue(name, false)
			q.mu.Lock()
			pos = store.EventPos{Gen: q.events.gen, Entry: q.events.seq, Whole: true}.String()
			q.mu.Unlock()
		} else if _, err := store.ParseEventPos(pos); err != nil {
			return nil, nil, nil, err
		}
		next[name] = pos
		queues = append(queues, name)
	}
	timer := time.NewTimer(block)
	defer timer.Stop()
	for {
		// Take the broadcast before reading: an entry added after the
		// read closes it.
		woken := s.newEvents.wait()
		evs, lost := s.readAfter(queues, next, max)
		if len(evs) > 0 || len(lost) > 0 || block <= 0 {
			return evs, next, lost, nil
		}
		select {
		case <-ctx.Done():
			return nil, next, nil, ctx.Err()
		case <-timer.C:
			return nil, next, nil, nil
		case <-woken:
		}
	}
}

// readAfter collects up to max events of queues after next's positions,
// moving next past them, and the queues whose position was trimmed away.
func (s *Store) readAfter(queues []string, next map[string]string, max int) (evs []store.Event, lost []string) {
	for _, name := range queues {
		q := s.lookup(name)
		if q == nil || len(evs) >= max {
			continue
		}
		p, _ := store.ParseEventPos(next[name])
		seq, idx, whole, start := p.Entry, p.Index, p.Whole, p.Start
		q.mu.Lock()
		l := &q.events
		kept := l.kept()
		// A position of a stream that started over, or past its end; or
		// entries after it, or the rest of a partly read entry, trimmed.
		gone := !start && p.OtherGen(store.EventPos{Gen: l.gen}) || seq > l.seq
		if len(kept) > 0 && !start {
			oldest := kept[0].seq
			gone = gone || whole && seq+1 < oldest || !whole && seq < oldest
		}
		if gone {
			lost = append(lost, name)
			seq, whole = 0, true
			// Told once: the next read goes on from the stream's start.
			next[name] = store.EventPos{Gen: l.gen, Whole: true}.String()
		}
		// The first entry to read: the one after seq, or seq itself when
		// partly read (entries are numbered one after the other).
		first := 0
		if len(kept) > 0 && seq >= kept[0].seq {
			first = int(seq - kept[0].seq)
			if whole {
				first++
			}
		}
		for _, e := range kept[min(first, len(kept)):] {
			for i, ev := range e.events {
				if e.seq == seq && i <= idx {
					continue
				}
				if len(evs) >= max {
					break
				}
				evs = append(evs, copyEvent(ev))
				next[name] = ev.Pos
			}
			if len(evs) >= max {
				break
			}
		}
		q.mu.Unlock()
	}
	return evs, lost
}

// copyEvent returns ev with nothing shared with the store.
func copyEvent(ev store.Event) store.Event {
	if ev.Progress != nil {
		ev.Progress = copyProgress(ev.Progress)
	}
	return ev
}

// copyProgress returns a deep copy of p.
func copyProgress(p *store.Progress) *store.Progress {
	c := *p
	c.Data = cloneBytes(p.Data)
	c.Log = append([]store.LogLine(nil), p.Log...)
	return &c
}

// progress stores a report of j's running attempt and emits it. q.mu must
// be held.
func (q *queue) progress(j *job, p *store.Progress, now time.Time) {
	cur := j.rec.Progress
	if cur == nil {
		cur = &store.Progress{}
		j.rec.Progress = cur
	}
	cur.Percent = p.Percent
	cur.Data = cloneBytes(p.Data)
	cur.Log = store.AppendLog(cur.Log, p.Log)
	if ev := q.emit(store.EventProgress, j, now); ev != nil {
		ev.Progress = copyProgress(p)
	}
}
