package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper/store"
)

// TestStoredScheduleNameMessages: a bad schedule name is named as the
// schedule's Name, as hopper words Schedule.Name (it said `schedule name:
// hopper: invalid job: ID "my job" has " "...`), still wrapping
// ErrInvalidConfig and ErrInvalidJob.
func TestStoredScheduleNameMessages(t *testing.T) {
	for _, tc := range []struct {
		name, want string
	}{
		{"my job", `hopper: invalid config: StoredSchedule.Name "my job" has " " at byte 2 (allowed: printable ASCII, no spaces)`},
		{"", `hopper: invalid config: StoredSchedule.Name must be 1 to 128 bytes, got 0`},
		{strings.Repeat("n", store.MaxIDLen+1), `hopper: invalid config: StoredSchedule.Name must be 1 to 128 bytes, got 129`},
	} {
		s := store.StoredSchedule{Name: tc.name, Queue: "q", Spec: "@every 1m", Job: store.NewJob{Kind: "k"}}
		err := s.Validate(nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Validate of name %q: %v, want %q", tc.name, err, tc.want)
		}
		if !errors.Is(err, store.ErrInvalidConfig) || !errors.Is(err, store.ErrInvalidJob) {
			t.Errorf("Validate of name %q: %v, want it to wrap ErrInvalidConfig and ErrInvalidJob", tc.name, err)
		}
	}
	ok := store.StoredSchedule{Name: "nightly", Queue: "q", Spec: "@every 1m", Job: store.NewJob{Kind: "k"}}
	if err := ok.Validate(nil); err != nil {
		t.Errorf("Validate of a good schedule: %v, want nil", err)
	}
}
