package hopper_test

import (
	"errors"
	"testing"

	"github.com/hopperq/hopper"
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
