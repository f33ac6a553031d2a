package hopper_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestSetScheduleErrorsWrapBoth: every invalid schedule SetSchedule is
// given fails with ErrInvalidConfig and what the invalid part gives
// (ErrInvalidJob, ErrInvalidQueue), as NewScheduler's check of a schedule
// in code does, "hopper:" once. Bad Opts gave ErrInvalidJob alone, and
// nil args (a nil interface) ErrInvalidConfig alone, where a nil pointer
// or a bad name gave both.
func TestSetScheduleErrorsWrapBoth(t *testing.T) {
	ctx := t.Context()
	ins := hopper.NewInspector(newStore())
	cases := []struct {
		name string
		s    hopper.Schedule
		want []error
	}{
		{"bad MaxRetries", hopper.Schedule{Name: "s", Spec: "@every 1m", Args: Echo{}, Opts: &hopper.ScheduleOpts{MaxRetries: -5}},
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"bad Group", hopper.Schedule{Name: "s", Spec: "@every 1m", Args: Echo{}, Opts: &hopper.ScheduleOpts{Group: "a b"}},
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"bad queue", hopper.Schedule{Name: "s", Spec: "@every 1m", Args: Echo{}, Opts: &hopper.ScheduleOpts{Queue: "a b"}},
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidQueue}},
		{"nil args", hopper.Schedule{Name: "s", Spec: "@every 1m"},
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"nil pointer args", hopper.Schedule{Name: "s", Spec: "@every 1m", Args: (*Echo)(nil)},
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{"bad name", hopper.Schedule{Name: "a b", Spec: "@every 1m", Args: Echo{}},
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkSaidOnce(t, "SetSchedule", ins.SetSchedule(ctx, tc.s), tc.want...)
			checkSaidOnce(t, "SchedulerConfig.Validate", hopper.SchedulerConfig{Schedules: []hopper.Schedule{tc.s}}.Validate(), tc.want...)
		})
	}
}

// TestScheduleChangesCheckTheQueue: PauseSchedule, ResumeSchedule,
// SetScheduleSpec and DeleteSchedule refuse an invalid queue name with the
// error PauseQueue gives for it (ErrInvalidQueue); they looked for the
// schedule and reported ErrScheduleNotFound.
func TestScheduleChangesCheckTheQueue(t *testing.T) {
	ctx := t.Context()
	ins := hopper.NewInspector(newStore())
	for _, queue := range []string{"", "a b", "tab\tq"} {
		want := ins.PauseQueue(ctx, queue)
		if !errors.Is(want, hopper.ErrInvalidQueue) {
			t.Fatalf("PauseQueue(%q): %v, want ErrInvalidQueue", queue, want)
		}
		for name, err := range map[string]error{
			"PauseSchedule":   ins.PauseSchedule(ctx, queue, "s"),
			"ResumeSchedule":  ins.ResumeSchedule(ctx, queue, "s"),
			"SetScheduleSpec": ins.SetScheduleSpec(ctx, queue, "s", "@every 1m"),
			"DeleteSchedule":  ins.DeleteSchedule(ctx, queue, "s"),
		} {
			if !errors.Is(err, hopper.ErrInvalidQueue) || errors.Is(err, hopper.ErrScheduleNotFound) || err.Error() != want.Error() {
				t.Errorf("%s(%q): %v, want %q as PauseQueue gives", name, queue, err, want)
			}
		}
	}
}

// TestScheduleNameAndSpecMessages: a bad schedule name is named as the
// schedule's Name (it said `Schedule.Name: invalid job: ID "my job" has
// " "...`), still wrapping ErrInvalidConfig and ErrInvalidJob; an empty
// Spec says a spec is required, with examples (it said `spec "": expected
// 5 to 6 fields, found 0`).
func TestScheduleNameAndSpecMessages(t *testing.T) {
	ctx := t.Context()
	ins := hopper.NewInspector(newStore())
	for _, tc := range []struct {
		s    hopper.Schedule
		want string
		errs []error
	}{
		{hopper.Schedule{Name: "my job", Spec: "@every 1m", Args: Echo{}},
			`hopper: invalid config: Schedule.Name "my job" has " " at byte 2 (allowed: printable ASCII, no spaces)`,
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{hopper.Schedule{Name: "", Spec: "@every 1m", Args: Echo{}},
			`hopper: invalid config: Schedule.Name must be 1 to 128 bytes, got 0`,
			[]error{hopper.ErrInvalidConfig, hopper.ErrInvalidJob}},
		{hopper.Schedule{Name: "s", Spec: "", Args: Echo{}},
			`hopper: invalid config: Schedule ("s"): spec is required: "@every 1m" (Every(time.Minute)), a cron expression such as "*/5 * * * *", or a descriptor such as "@daily"`,
			[]error{hopper.ErrInvalidConfig}},
	} {
		err := ins.SetSchedule(ctx, tc.s)
		if err == nil || err.Error() != tc.want {
			t.Errorf("SetSchedule(%+v): %v, want %q", tc.s, err, tc.want)
		}
		checkSaidOnce(t, "SetSchedule", err, tc.errs...)
	}
	err := hopper.SchedulerConfig{Schedules: []hopper.Schedule{{Name: "my job", Spec: "@every 1m", Args: Echo{}}}}.Validate()
	if want := `hopper: invalid config: SchedulerConfig.Schedules[0].Name "my job" has " " at byte 2`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("SchedulerConfig.Validate: %v, want it to start %q", err, want)
	}
	if _, err := hopper.NextTick("  ", time.Now()); err == nil || !strings.Contains(err.Error(), "spec is required") {
		t.Errorf("NextTick of a blank spec: %v, want it to say a spec is required", err)
	}
}

// TestScheduleInCodeIsNotStored: RunScheduleNow (and PauseSchedule,
// DeleteSchedule) on a schedule declared in code, which a Scheduler
// registered, says that only stored schedules can be run now (it said
// `stored schedule not found: "every-second"`), still wrapping
// ErrScheduleNotFound; a name that is neither keeps the plain message.
func TestScheduleInCodeIsNotStored(t *testing.T) {
	ctx := t.Context()
	st := newStore()
	if err := st.RegisterSchedules(ctx, []store.ScheduleInfo{{Name: "every-second", Queue: "default", Spec: "@every 1s", Kind: Echo{}.Kind()}}); err != nil {
		t.Fatal(err)
	}
	ins := hopper.NewInspector(st)
	_, err := ins.RunScheduleNow(ctx, "default", "every-second")
	if want := `hopper: stored schedule not found: "every-second" in queue "default" is declared in code (a running Scheduler registered it): only stored schedules (Inspector.SetSchedule) can be run now`; !errors.Is(err, hopper.ErrScheduleNotFound) || err.Error() != want {
		t.Errorf("RunScheduleNow of a schedule in code: %v, want %q", err, want)
	}
	for name, err := range map[string]error{
		"PauseSchedule":  ins.PauseSchedule(ctx, "default", "every-second"),
		"DeleteSchedule": ins.DeleteSchedule(ctx, "default", "every-second"),
	} {
		if !errors.Is(err, hopper.ErrScheduleNotFound) || !strings.Contains(err.Error(), "is declared in code") {
			t.Errorf("%s of a schedule in code: %v, want ErrScheduleNotFound saying it is declared in code", name, err)
		}
	}
	_, err = ins.RunScheduleNow(ctx, "default", "nope")
	if want := `hopper: stored schedule not found: "nope" in queue "default"`; !errors.Is(err, hopper.ErrScheduleNotFound) || err.Error() != want {
		t.Errorf("RunScheduleNow of no schedule: %v, want %q", err, want)
	}
}
