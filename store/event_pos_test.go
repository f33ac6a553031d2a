package store_test

import (
	"errors"
	"testing"

	"github.com/hopperq/hopper/store"
)

// A position reads back as it was written, and one in another form is
// refused with ErrInvalidConfig (the dashboard answers 400 on it).
func TestParseEventPos(t *testing.T) {
	for _, pos := range []string{store.FromStart, "0", "12", "12/0", "12/3", "18446744073709551615",
		"1764979200000:12", "1:0", "1:12/3", "18446744073709551615:1"} {
		p, err := store.ParseEventPos(pos)
		if err != nil {
			t.Errorf("ParseEventPos(%q): %v", pos, err)
			continue
		}
		if got := p.String(); got != pos {
			t.Errorf("ParseEventPos(%q).String() = %q", pos, got)
		}
	}
	for _, pos := range []string{"", store.FromNow, "x", "-1", "1/-1", "1/", "/2", "1/2/3", "18446744073709551616", " 1",
		":12", "0:12", "-1:12", "x:12", "1:", "1:x", "1:2:3", "1:/2"} {
		if _, err := store.ParseEventPos(pos); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("ParseEventPos(%q): %v, want ErrInvalidConfig", pos, err)
		}
	}
	if got := store.EventPosOf(0, 7, 2, 3); got != "7" {
		t.Errorf("EventPosOf(0, 7, 2, 3) = %q, want the entry alone for its last event", got)
	}
	if got := store.EventPosOf(0, 7, 0, 3); got != "7/0" {
		t.Errorf("EventPosOf(0, 7, 0, 3) = %q, want 7/0", got)
	}
	if got := store.EventPosOf(42, 7, 0, 3); got != "42:7/0" {
		t.Errorf("EventPosOf(42, 7, 0, 3) = %q, want 42:7/0", got)
	}
}

// Positions of two generations are told apart; a position without one
// (as stores gave out before generations) is of none.
func TestEventPosOtherGen(t *testing.T) {
	parse := func(s string) store.EventPos {
		t.Helper()
		p, err := store.ParseEventPos(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		a, b  string
		other bool
	}{
		{"5:12", "6:3", true},
		{"5:12", "5:3", false},
		{"12", "6:3", false},
		{"5:12", "3", false},
	} {
		if got := parse(c.a).OtherGen(parse(c.b)); got != c.other {
			t.Errorf("%s.OtherGen(%s) = %v, want %v", c.a, c.b, got, c.other)
		}
	}
}
