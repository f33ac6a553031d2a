package hopper_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestMetaEmptyKeyRefused: Meta with an empty key is refused with
// ErrInvalidJob and a message naming it, on every path that takes Meta,
// and nothing is stored; it was stored.
func TestMetaEmptyKeyRefused(t *testing.T) {
	testMetaRefused(t, "", "Meta has an empty key")
}

// TestMetaOfATaskRefused: Meta holding a workflow task's keys (a task's
// Meta copied to a follow-up job) is refused the same way; the job was
// stored, and TaskOf, TaskResult and EnqueueTasks in its handler took it
// for the task whose Meta it copied, reading and adding to that task's
// workflow.
func TestMetaOfATaskRefused(t *testing.T) {
	for _, k := range []string{store.MetaWorkflow, store.MetaTask} {
		t.Run(k, func(t *testing.T) { testMetaRefused(t, k, "marks a workflow task's job") })
	}
}

// testMetaRefused checks that Meta with the key bad is refused with
// ErrInvalidJob and a message holding want, on every path that takes
// Meta, and that nothing is stored.
func testMetaRefused(t *testing.T, bad, want string) {
	ctx := t.Context()
	st := newStore()
	const q = "meta"
	c := hopper.NewClient(st, &hopper.ClientConfig{Queue: q})
	meta := map[string]string{"ok": "1", bad: "v"}
	prepared, err := hopper.Prepare(c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prepared.Meta()[bad] = "added after Prepare"
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
		{"PreparedJob.Validate after Meta()[key] = ...", prepared.Validate},
		{"EnqueuePrepared after Meta()[key] = ...", func() error {
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
			if !errors.Is(err, hopper.ErrInvalidJob) || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want ErrInvalidJob saying %q", err, want)
			}
			kindFirst(t, err)
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
			kindFirst(t, err)
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

// kindFirst fails t unless err says "hopper:" once and its kind before
// which job of a batch it is about: "hopper: invalid job: job 0 (ID ...):
// ...", where a job of a batch read "job 0: hopper: invalid job: ...".
func kindFirst(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	at := strings.Index(msg, "job 0")
	if !strings.HasPrefix(msg, "hopper: ") || strings.Count(msg, "hopper:") != 1 ||
		(at >= 0 && at < strings.Index(msg, "invalid job")) {
		t.Errorf("error %q: want \"hopper:\" once, and the kind (\"invalid job\") before the job", msg)
	}
}

// TestTaskOfNeedsTheTaskJobID: TaskOf takes a job for a workflow task only
// when its ID is the task's job ID and its Meta names the same workflow
// and task; a plain job carrying a task's Meta (stored before Enqueue
// refused it, or written by other software) was taken for that task.
func TestTaskOfNeedsTheTaskJobID(t *testing.T) {
	meta := map[string]string{store.MetaWorkflow: "wf1", store.MetaTask: "a"}
	cases := []struct {
		id   string
		meta map[string]string
		ok   bool
	}{
		{store.TaskJobID("wf1", "a"), meta, true},
		{"01m955g8rtxhnbqf2gzd", meta, false},
		{store.TaskJobID("wf1", "b"), meta, false},
		{store.TaskJobID("wf2", "a"), meta, false},
		{store.TaskJobID("wf1", "a"), nil, false},
	}
	for _, tc := range cases {
		wf, task, ok := hopper.TaskOf(&hopper.JobRecord{ID: tc.id, JobSpec: store.JobSpec{Meta: tc.meta}})
		if ok != tc.ok || (ok && (wf != "wf1" || task != "a")) {
			t.Errorf("TaskOf(ID %q, Meta %v) = %q, %q, %v; want ok %v", tc.id, tc.meta, wf, task, ok, tc.ok)
		}
	}
}
