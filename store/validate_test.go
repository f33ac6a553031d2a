package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper/store"
)

// TestValidateEnqueueID: a caller's job ID is a valid ID without '~',
// which ValidateID (what stores check) accepts for tasks' job IDs.
func TestValidateEnqueueID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want string // in the error; "" for none
	}{
		{"order-42:retry", ""},
		{"wf~task", "'~' at byte 2, which is reserved for workflow tasks' job IDs"},
		{"~", "'~' at byte 0"},
		{"a b~", "allowed: printable ASCII, no spaces"},
		{"", "ID must be 1 to 128 bytes"},
	} {
		err := store.ValidateEnqueueID(tc.id)
		if tc.want == "" {
			if err != nil {
				t.Errorf("ValidateEnqueueID(%q) = %v, want nil", tc.id, err)
			}
			continue
		}
		if !errors.Is(err, store.ErrInvalidJob) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateEnqueueID(%q) = %v, want ErrInvalidJob containing %q", tc.id, err, tc.want)
		}
	}
	if err := store.ValidateID(store.TaskJobID("wf", "task")); err != nil {
		t.Errorf("ValidateID of a task's job ID: %v, want nil (stores keep accepting them)", err)
	}
}

// TestValidateEnqueueQueue: a caller's queue is a valid queue name that is
// not a partition's, which ValidateQueue (what stores check) accepts.
func TestValidateEnqueueQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // in the error; "" for none
	}{
		{"images", ""},
		{"q~1", `"q~1" names a partition of queue "q": enqueue into "q"`},
		{store.PartitionName("images", 255), `names a partition of queue "images"`},
		{"q~01", "a partition is named <queue>~N"},
		{"a b", `has " " at byte 1`},
	} {
		err := store.ValidateEnqueueQueue(tc.name)
		if tc.want == "" {
			if err != nil {
				t.Errorf("ValidateEnqueueQueue(%q) = %v, want nil", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, store.ErrInvalidQueue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateEnqueueQueue(%q) = %v, want ErrInvalidQueue containing %q", tc.name, err, tc.want)
		}
	}
	if err := store.ValidateQueue("q~1"); err != nil {
		t.Errorf("ValidateQueue of a partition's name: %v, want nil (stores keep accepting them)", err)
	}
}
