package hopper_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// Debounced carries Replace in its own options, without an ID or a
// unique key.
type Debounced struct{ N int }

func (Debounced) Kind() string { return "debounced" }
func (Debounced) EnqueueOpts() hopper.EnqueueOpts {
	return hopper.EnqueueOpts{Delay: time.Hour, Replace: hopper.ReplaceArgs}
}

// TestReplaceNeedsAKey: EnqueueOpts.Replace with neither an ID nor
// Unique, which matches no job (the job gets a new ID), is refused with
// ErrInvalidJob on every path that takes the options, and nothing is
// stored; it was accepted and did nothing. With an ID or Unique it is
// accepted, and a workflow task's or a schedule's args that carry it
// (ArgsWithOpts, whose Replace is ignored there) still are.
func TestReplaceNeedsAKey(t *testing.T) {
	ctx := t.Context()
	st := newStore()
	c := hopper.NewClient(st, nil)
	for _, r := range []hopper.Replace{hopper.ReplaceArgs, hopper.ReplaceRunAt, hopper.ReplaceArgs | hopper.ReplaceRunAt} {
		o := &hopper.EnqueueOpts{Replace: r, Delay: time.Hour}
		for name, do := range map[string]func() error{
			"Enqueue":     func() error { _, err := hopper.Enqueue(ctx, c, Echo{}, o); return err },
			"EnqueueMany": func() error { _, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}}, o); return err },
			"EnqueueAndWait": func() error {
				// Bounded: a job it stored would be waited for an hour.
				ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				_, _, err := hopper.EnqueueAndWait[int](ctx, c, Echo{}, o)
				return err
			},
			"Prepare":     func() error { _, err := hopper.Prepare(c, Echo{}, o); return err },
			"PrepareMany": func() error { _, err := hopper.PrepareMany(c, []Echo{{N: 1}, {N: 2}}, o); return err },
			"Enqueue of args with their own Replace": func() error {
				_, err := hopper.Enqueue(ctx, c, Debounced{}, nil)
				return err
			},
		} {
			if err := do(); !errors.Is(err, hopper.ErrInvalidJob) ||
				!strings.Contains(err.Error(), "Replace needs an ID or a Unique key to match the job it replaces") {
				t.Errorf("%s with Replace %d and no ID or Unique: %v, want ErrInvalidJob saying Replace needs an ID or a Unique key", name, r, err)
			}
		}
	}
	if qs, err := st.ListQueues(ctx); err != nil || len(qs) != 0 {
		t.Fatalf("queues %q (%v) after refused enqueues only, want none", qs, err)
	}

	for name, o := range map[string]*hopper.EnqueueOpts{
		"ID":                {ID: "job-1"},
		"Unique":            {Unique: &hopper.UniqueOpts{}},
		"Unique with a key": {Unique: &hopper.UniqueOpts{Key: "k"}},
	} {
		o.Replace, o.Delay = hopper.ReplaceArgs, time.Hour
		if _, err := hopper.Enqueue(ctx, c, Echo{}, o); err != nil {
			t.Errorf("Replace with %s: %v", name, err)
		}
	}
	if _, err := hopper.Enqueue(ctx, c, Debounced{}, &hopper.EnqueueOpts{ID: "debounced-1"}); err != nil {
		t.Errorf("args with their own Replace, given an ID: %v", err)
	}
	wf := hopper.NewWorkflow("replace", nil)
	hopper.AddTask(wf, "a", Debounced{}, nil)
	if _, err := hopper.EnqueueWorkflow(ctx, c, wf); err != nil {
		t.Errorf("a workflow task whose args carry Replace: %v", err)
	}
	s := hopper.Schedule{Name: "debounced", Spec: "@every 1m", Args: Debounced{}}
	if err := (hopper.SchedulerConfig{Schedules: []hopper.Schedule{s}}).Validate(); err != nil {
		t.Errorf("a schedule whose args carry Replace: %v", err)
	}
	if err := hopper.NewInspector(st).SetSchedule(ctx, s); err != nil {
		t.Errorf("a stored schedule whose args carry Replace: %v", err)
	}
}
