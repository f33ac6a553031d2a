package hopper_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// TestMetaEmptyKeyRefused: Meta with an empty key is refused with
// ErrInvalidJob and a message naming it, on every path that takes Meta,
// and nothing is stored; it was stored.
func TestMetaEmptyKeyRefused(t *testing.T) {
	ctx := t.Context()
	st := newStore()
	const q = "meta"
	c := hopper.NewClient(st, &hopper.ClientConfig{Queue: q})
	meta := map[string]string{"ok": "1", "": "v"}
	prepared, err := hopper.Prepare(c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prepared.Meta()[""] = "added after Prepare"
	cases := []struct {
		name string
		do   func() error
	}{
		{"Enqueue", func() error { _, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Meta: meta}); return err }},
		{"EnqueueMany", func() error {
			_, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}}, &hopper.EnqueueOpts{Meta: meta})
			return err
		}},
		{"EnqueueAndWait", func() error {
			// Refused before the store: a cancelled context does not
			// matter, and no wait starts (the wait for a job stored
			// would last as long as ctx).
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			_, _, err := hopper.EnqueueAndWait[int](cancelled, c, Echo{}, &hopper.EnqueueOpts{Meta: meta})
			return err
		}},
		{"Prepare", func() error { _, err := hopper.Prepare(c, Echo{}, &hopper.EnqueueOpts{Meta: meta}); return err }},
		{"PrepareMany", func() error { _, err := hopper.PrepareMany(c, []Echo{{}}, &hopper.EnqueueOpts{Meta: meta}); return err }},
		{"PreparedJob.Validate after Meta()[\"\"] = ...", prepared.Validate},
		{"EnqueuePrepared after Meta()[\"\"] = ...", func() error {
			_, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{prepared})
			return err
		}},
		{"EnqueueWorkflow", func() error {
			wf := hopper.NewWorkflow("meta", nil)
			hopper.AddTask(wf, "a", Echo{}, &hopper.TaskOpts{Meta: meta})
			_, err := hopper.EnqueueWorkflow(ctx, c, wf)
			return err
		}},
		{"SetSchedule", func() error {
			return hopper.NewInspector(st).SetSchedule(ctx, hopper.Schedule{Name: "meta", Spec: "@every 1m", Args: Echo{},
				Opts: &hopper.ScheduleOpts{Queue: q, Meta: meta}})
		}},
		{"SchedulerConfig.Validate", func() error {
			return hopper.SchedulerConfig{Schedules: []hopper.Schedule{{Name: "meta", Spec: "@every 1m", Args: Echo{},
				Opts: &hopper.ScheduleOpts{Meta: meta}}}}.Validate()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if !errors.Is(err, hopper.ErrInvalidJob) || !strings.Contains(err.Error(), "Meta has an empty key") {
				t.Fatalf("got %v, want ErrInvalidJob saying \"Meta has an empty key\"", err)
			}
		})
	}
	if _, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Meta: map[string]string{"k": ""}, Delay: time.Hour}); err != nil {
		t.Errorf("Enqueue with an empty Meta value: %v, want it stored", err)
	}
	qs, err := hopper.NewInspector(st).GetQueueStats(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if qs.Counts.Pending != 1 || qs.Counts.Ready != 0 {
		t.Errorf("refused jobs left %+v in the queue, want only the one with an empty value", qs.Counts)
	}
	if list, err := hopper.NewInspector(st).ListSchedules(ctx); err != nil || len(list) != 0 {
		t.Errorf("ListSchedules: %v, %v; want no schedule stored", list, err)
	}
}

// TestMetaEmptyKeyFromMiddlewareRefused: an enqueue middleware that adds
// a Meta entry with an empty key gets the job refused with ErrInvalidJob
// on every path through it, as Meta from the options is, and nothing is
// stored; the check ran before the middleware, so the job was stored.
func TestMetaEmptyKeyFromMiddlewareRefused(t *testing.T) {
	ctx := t.Context()
	st := newStore()
	const q = "meta-mw"
	c := hopper.NewClient(st, &hopper.ClientConfig{Queue: q})
	c.Use(func(next hopper.EnqueueFunc) hopper.EnqueueFunc {
		return func(ctx context.Context, jobs []*hopper.PreparedJob) ([]*hopper.JobInfo, error) {
			for _, p := range jobs {
				p.Meta()[""] = "from middleware"
			}
			return next(ctx, jobs)
		}
	})
	prepared, err := hopper.Prepare(c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		do   func() error
	}{
		{"Enqueue", func() error { _, err := hopper.Enqueue(ctx, c, Echo{}, nil); return err }},
		{"EnqueueMany", func() error { _, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}}, nil); return err }},
		{"EnqueuePrepared", func() error {
			_, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{prepared})
			return err
		}},
		{"EnqueueWorkflow", func() error {
			wf := hopper.NewWorkflow("meta-mw", nil)
			hopper.AddTask(wf, "a", Echo{}, nil)
			_, err := hopper.EnqueueWorkflow(ctx, c, wf)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if !errors.Is(err, hopper.ErrInvalidJob) || !strings.Contains(err.Error(), "Meta has an empty key") {
				t.Fatalf("got %v, want ErrInvalidJob saying \"Meta has an empty key\"", err)
			}
		})
	}
	qs, err := hopper.NewInspector(st).GetQueueStats(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if c := qs.Counts; c.Pending != 0 || c.Ready != 0 {
		t.Errorf("refused jobs left %+v in the queue, want none", c)
	}
	if _, ok := prepared.Meta()[""]; ok {
		t.Errorf("EnqueuePrepared's middleware changed the caller's job, want a copy changed")
	}
}
