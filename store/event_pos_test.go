package store_test

import (
	"errors"
	"testing"

	"github.com/hopperq/hopper/store"
)

// A position reads back as it was written, and one in another form is
// refused with ErrInvalidConfig (the dashboard answers 400 on it).
func TestParseEventPos(t *testing.T) {
	for _, pos := range []string{store.FromStart, "0", "12", "12/0", "12/3", "18446744073709551615"} {
		p, err := store.ParseEventPos(pos)
		if err != nil {
			t.Errorf("ParseEventPos(%q): %v", pos, err)
			continue
		}
		if got := p.String(); got != pos {
			t.Errorf("ParseEventPos(%q).String() = %q", pos, got)
		}
	}
	for _, pos := range []string{"", store.FromNow, "x", "-1", "1/-1", "1/", "/2", "1/2/3", "18446744073709551616", " 1"} {
		if _, err := store.ParseEventPos(pos); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("ParseEventPos(%q): %v, want ErrInvalidConfig", pos, err)
		}
	}
	if got := store.EventPosOf(7, 2, 3); got != "7" {
		t.Errorf("EventPosOf(7, 2, 3) = %q, want the entry alone for its last event", got)
	}
	if got := store.EventPosOf(7, 0, 3); got != "7/0" {
		t.Errorf("EventPosOf(7, 0, 3) = %q, want 7/0", got)
	}
}
