package store

import (
	"fmt"
	"strconv"
	"strings"
)

// EventPos is an event position in the form both of this module's stores
// give out: the generation of the queue's stream, "<gen>:", then the
// number of the store step (the stream's entry) that emitted the event
// and, unless the event was the entry's last, "/<index>" of the event in
// it. The generation tells streams apart that restarted their numbering
// (its keys deleted, a server's data lost or restored, a memstore
// process restarted): a reader whose position names another
// generation than the stream's is told it lost events, even once the new
// stream has grown past its number. A position without a generation (as
// stores gave out up to v0.1.0, and as a stream gives before its first
// entry) is read as before: only its number is checked. The zero value is
// "0/0", entry 0 read up to its first event; positions come from events,
// from a read or from ParseEventPos.
type EventPos struct {
	// Gen is the stream's generation; 0 when the position has none.
	Gen uint64
	// Entry is the entry's number (0 for FromStart).
	Entry uint64
	// Index is the index of the last event read in the entry; meaningful
	// only when Whole is false.
	Index int
	// Whole is true when the entry was read to its end.
	Whole bool
	// Start is true for FromStart (Entry 0, Whole).
	Start bool
}

// ParseEventPos reads a position in memstore's and redisstore's form, or
// FromStart. FromNow is not a position: readers resolve it to the
// stream's end themselves. A position in another form, a negative or
// non-numeric generation, entry or index say, returns an error wrapping
// ErrInvalidConfig that quotes it. It reads nothing from a store, so a
// caller can check a position (a browser's Last-Event-ID, say) before it
// opens a stream. Safe for concurrent use.
func ParseEventPos(pos string) (EventPos, error) {
	if pos == FromStart {
		return EventPos{Whole: true, Start: true}, nil
	}
	var p EventPos
	var err error
	rest := pos
	if g, r, ok := strings.Cut(pos, ":"); ok {
		rest = r
		p.Gen, err = strconv.ParseUint(g, 10, 64)
		if err == nil && p.Gen == 0 {
			err = strconv.ErrRange
		}
	}
	s, i, partial := strings.Cut(rest, "/")
	if err == nil {
		p.Entry, err = strconv.ParseUint(s, 10, 64)
		p.Whole = !partial
	}
	if err == nil && partial {
		p.Index, err = strconv.Atoi(i)
		if err == nil && p.Index < 0 {
			err = strconv.ErrRange
		}
	}
	if err != nil {
		return EventPos{}, fmt.Errorf("%w: event position %q", ErrInvalidConfig, pos)
	}
	return p, nil
}

// String formats p as ParseEventPos reads it: FromStart for Start, else
// "<gen>:" when Gen is set, then the entry alone when Whole, else
// "<entry>/<index>".
func (p EventPos) String() string {
	if p.Start {
		return FromStart
	}
	var b []byte
	if p.Gen != 0 {
		b = strconv.AppendUint(b, p.Gen, 10)
		b = append(b, ':')
	}
	b = strconv.AppendUint(b, p.Entry, 10)
	if !p.Whole {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(p.Index), 10)
	}
	return string(b)
}

// OtherGen reports whether p and q name different generations of a
// stream: both have one and they differ. A reader whose position is of
// another generation than its stream's end lost what the old stream held
// after it.
func (p EventPos) OtherGen(q EventPos) bool {
	return p.Gen != 0 && q.Gen != 0 && p.Gen != q.Gen
}

// EventPosOf is the position of the i-th of count events of entry n of
// the stream of generation gen (0: none): the entry alone for its last
// event, "<entry>/<i>" for the others, after "<gen>:".
func EventPosOf(gen, n uint64, i, count int) string {
	return EventPos{Gen: gen, Entry: n, Index: i, Whole: i == count-1}.String()
}
