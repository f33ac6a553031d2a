package hopper_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// Hidden's only field is unexported: msgpack drops it.
type Hidden struct{ userID int }

func (Hidden) Kind() string { return "hidden" }

// Marked has no fields: a job that needs no args.
type Marked struct{}

func (Marked) Kind() string { return "marked" }

// Tagged's exported field is left out when zero.
type Tagged struct {
	Note string `msgpack:",omitempty"`
	n    int
}

func (Tagged) Kind() string { return "tagged" }

// TestArgsWithOnlyUnexportedFieldsRefused: args whose fields are all
// unexported are refused at enqueue, naming the type; they were stored as
// an empty map and the handler got a zero value. Args with no fields, or
// whose exported fields are left out when zero, are stored.
func TestArgsWithOnlyUnexportedFieldsRefused(t *testing.T) {
	ctx := t.Context()
	c := hopper.NewClient(newStore(), nil)
	_, err := hopper.Enqueue(ctx, c, Hidden{userID: 7}, nil)
	if !errors.Is(err, hopper.ErrInvalidJob) || !strings.Contains(err.Error(), "Hidden") || !strings.Contains(err.Error(), "none exported") {
		t.Fatalf("Enqueue of args with only unexported fields: %v, want ErrInvalidJob naming the type", err)
	}
	if _, err := hopper.Enqueue(ctx, c, Marked{}, nil); err != nil {
		t.Errorf("Enqueue of args with no fields: %v", err)
	}
	if _, err := hopper.Enqueue(ctx, c, Tagged{n: 1}, nil); err != nil {
		t.Errorf("Enqueue of args whose exported field is zero and left out: %v", err)
	}
}
