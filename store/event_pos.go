package store

import (
	"fmt"
	"strconv"
	"strings"
)

// EventPos is an event position in the form both of this module's stores
// give out: the number of the store step (the stream's entry) that emitted
// the event and, unless the event was the entry's last, "/<index>" of the
// event in it. The zero value is "0/0", entry 0 read up to its first
// event; positions come from events, from a read or from ParseEventPos.
type EventPos struct {
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
// non-numeric entry or index say, returns an error wrapping
// ErrInvalidConfig that quotes it. It reads nothing from a store, so a
// caller can check a position (a browser's Last-Event-ID, say) before it
// opens a stream. Safe for concurrent use.
func ParseEventPos(pos string) (EventPos, error) {
	if pos == FromStart {
		return EventPos{Whole: true, Start: true}, nil
	}
	s, i, partial := strings.Cut(pos, "/")
	n, err := strconv.ParseUint(s, 10, 64)
	p := EventPos{Entry: n, Whole: !partial}
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

// String formats p as ParseEventPos reads it: FromStart for Start, the
// entry alone when Whole, else "<entry>/<index>".
func (p EventPos) String() string {
	switch {
	case p.Start:
		return FromStart
	case p.Whole:
		return strconv.FormatUint(p.Entry, 10)
	}
	return strconv.FormatUint(p.Entry, 10) + "/" + strconv.Itoa(p.Index)
}

// EventPosOf is the position of the i-th of count events of entry n: the
// entry alone for its last event, "<entry>/<i>" for the others.
func EventPosOf(n uint64, i, count int) string {
	return EventPos{Entry: n, Index: i, Whole: i == count-1}.String()
}
