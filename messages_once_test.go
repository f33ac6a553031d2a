package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
)

// checkSaidOnce fails t unless err says "hopper:" exactly once and wraps
// every one of want.
func checkSaidOnce(t *testing.T, what string, err error, want ...error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one wrapping %v", what, want)
		return
	}
	if n := strings.Count(err.Error(), "hopper:"); n != 1 {
		t.Errorf("%s: %q says \"hopper:\" %d times, want once", what, err, n)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%s: %q does not wrap %q", what, err, w)
		}
	}
}

// TestHopperSaidOnce: an error that wraps one of hopper's errors under
// another (a sentinel under a sentinel, or under the call that failed)
// says "hopper:" once and still matches both; each said it twice, as
// "hopper: invalid config: SchedulerConfig.Schedules[0] ("s"): hopper:
// invalid job: args are a nil *Echo".
func TestHopperSaidOnce(t *testing.T) {
	ctx := t.Context()
	st := newStore()
	c := hopper.NewClient(st, nil)
	var nilArgs *Echo
	schedule := func(s hopper.Schedule) error {
		return hopper.SchedulerConfig{Schedules: []hopper.Schedule{s}}.Validate()
	}
	refused := fmt.Errorf("%w: refused by policy", hopper.ErrInvalidJob)
	refusing := hopper.NewClient(st, nil)
	refusing.Use(func(hopper.EnqueueFunc) hopper.EnqueueFunc {
		return func(context.Context, []*hopper.PreparedJob) ([]*hopper.JobInfo, error) { return nil, refused }
	})
	wf := hopper.NewWorkflow("refused", nil)
	hopper.AddTask(wf, "a", Echo{}, nil)
	waiting, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want []error
	}{
		{"schedule with nil args", schedule(hopper.Schedule{Name: "s", Spec: "@every 1s", Args: nilArgs}),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"schedule with a bad name", schedule(hopper.Schedule{Name: "a b", Spec: "@every 1s", Args: Echo{}}),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"schedule with a bad MaxRetries", schedule(hopper.Schedule{Name: "s", Spec: "@every 1s", Args: Echo{}, Opts: &hopper.ScheduleOpts{MaxRetries: -5}}),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"schedule with a bad queue", schedule(hopper.Schedule{Name: "s", Spec: "@every 1s", Args: Echo{}, Opts: &hopper.ScheduleOpts{Queue: "a b"}}),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidQueue}},
		{"stored schedule with nil args", hopper.NewInspector(st).SetSchedule(ctx, hopper.Schedule{Name: "s", Spec: "@every 1s", Args: nilArgs}),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"WorkerConfig.Queues", hopper.WorkerConfig{Queues: map[string]int{"a b": 1}}.Validate(),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidQueue}},
		{"ClientConfig.Queue", hopper.ClientConfig{Queue: "a b"}.Validate(),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidQueue}},
		{"SchedulerConfig.Queues", hopper.SchedulerConfig{Queues: []string{"a b"}}.Validate(),
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidQueue}},
		{"DecodeResult", func() error {
			_, err := hopper.DecodeResult[int](&hopper.JobRecord{ID: "x", Queue: "q", Result: []byte{0xa1, 'x'}})
			return err
		}(), []error{hopper.ErrDecode}},
		{"UpdateJob with args that do not encode", func() error {
			_, err := hopper.NewInspector(st).UpdateJob(ctx, "default", waiting.ID, hopper.JobUpdate{Args: Unencodable{C: make(chan int)}})
			return err
		}(), []error{hopper.ErrInvalidJob}},
		{"Enqueue refused by middleware", func() error { _, err := hopper.Enqueue(ctx, refusing, Echo{}, nil); return err }(),
			[]error{hopper.ErrInvalidJob, refused}},
		{"EnqueueMany refused by middleware", func() error { _, err := hopper.EnqueueMany(ctx, refusing, []Echo{{}, {}}, nil); return err }(),
			[]error{hopper.ErrInvalidJob, refused}},
		{"EnqueueWorkflow refused by middleware", func() error { _, err := hopper.EnqueueWorkflow(ctx, refusing, wf); return err }(),
			[]error{hopper.ErrInvalidJob, refused}},
	}
	for _, tc := range cases {
		checkSaidOnce(t, tc.name, tc.err, tc.want...)
	}
}

// Unencodable is args that msgpack cannot encode.
type Unencodable struct{ C chan int }

func (Unencodable) Kind() string { return "unencodable" }

// Fan adds a task in the queue Queue to its workflow (MoreTasks) and
// records a string; Read reads that string as an int (TaskResult).
type (
	Fan  struct{ Queue string }
	Read struct{}
)

func (Fan) Kind() string  { return "once.fan" }
func (Read) Kind() string { return "once.read" }

// TestHopperSaidOnceForWorkflows: a workflow task in a queue the store
// partitions (redisstore Config.Partitions), which takes no tasks, is
// refused by the client naming the task, "hopper:" once, wrapping
// ErrInvalidJob and ErrInvalidQueue as the store's refusal did; the
// store's, under EnqueueWorkflow's, said "hopper: enqueue workflow ...:
// hopper: invalid job: task "a": hopper: invalid queue name: ...". The
// same for EnqueueTasks, and for a dependency's result that does not
// decode (TaskResult), which said "hopper: result of task ...: hopper:
// cannot decode args: ...".
func TestHopperSaidOnceForWorkflows(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rdb := redistest.Start(t).Client(t)
	st := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger(), Partitions: map[string]int{"parted": 2}})
	c := hopper.NewClient(st, nil)

	wf := hopper.NewWorkflow("parted", nil)
	hopper.AddTask(wf, "a", Echo{}, &hopper.TaskOpts{Queue: "parted"})
	_, err := hopper.EnqueueWorkflow(ctx, c, wf)
	checkSaidOnce(t, "EnqueueWorkflow of a task in a partitioned queue", err, hopper.ErrInvalidJob, hopper.ErrInvalidQueue)
	if err != nil && !strings.Contains(err.Error(), `task "a"`) {
		t.Errorf("EnqueueWorkflow: %q does not name the task", err)
	}

	added, read := make(chan error, 1), make(chan error, 1)
	w := hopper.NewWorker(st, testConfig("default"))
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Fan]) error {
		more := hopper.MoreTasks(ctx)
		hopper.AddTask(more, "extra", Echo{}, &hopper.TaskOpts{Queue: job.Args.Queue})
		added <- hopper.EnqueueTasks(ctx, c, more)
		return hopper.RecordResult(ctx, "not a number")
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Read]) error {
		_, err := hopper.TaskResult[int](ctx, "fan")
		read <- err
		return nil
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Echo]) error { return nil })
	startWorker(t, w)
	wf = hopper.NewWorkflow("fan", nil)
	fan := hopper.AddTask(wf, "fan", Fan{Queue: "parted"}, nil)
	hopper.AddTask(wf, "read", Read{}, nil).After(fan)
	if _, err := hopper.EnqueueWorkflow(ctx, c, wf); err != nil {
		t.Fatal(err)
	}
	for what, ch := range map[string]chan error{"EnqueueTasks of a task in a partitioned queue": added, "TaskResult of a string as an int": read} {
		select {
		case err := <-ch:
			want := []error{hopper.ErrInvalidJob, hopper.ErrInvalidQueue}
			if ch == read {
				want = []error{hopper.ErrDecode}
			}
			checkSaidOnce(t, what, err, want...)
		case <-ctx.Done():
			t.Fatalf("%s: the task did not run", what)
		}
	}
}
