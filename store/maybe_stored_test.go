package store_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hopperq/hopper/store"
)

type maybe bool

func (m maybe) Error() string     { return "a store's error" }
func (m maybe) MayBeStored() bool { return bool(m) }

func TestMayBeStored(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"an error that says nothing", errors.New("dial tcp: connection refused"), false},
		{"a store's error saying so", maybe(true), true},
		{"wrapped by middleware", fmt.Errorf("hopper: enqueue: %w", maybe(true)), true},
		{"joined with another", errors.Join(errors.New("unavailable"), maybe(true)), true},
		{"a store's error saying not", fmt.Errorf("hopper: enqueue: %w", maybe(false)), false},
	} {
		if got := store.MayBeStored(tc.err); got != tc.want {
			t.Errorf("%s: MayBeStored(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
