package hopper_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
)

// A running scheduler records each tick it enqueues among the schedule's
// last runs, the latest first, each naming its job; RunScheduleNow adds a
// run by hand without moving the last tick.
func TestScheduleRunsRecorded(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		st := open()
		ctx, cancel := context.WithCancel(context.Background())
		ins := hopper.NewInspector(st)
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "often", Spec: hopper.Every(50 * time.Millisecond), Args: Echo{Msg: "tick"},
			Opts: &hopper.ScheduleOpts{Queue: "runs"}}); err != nil {
			t.Fatal(err)
		}
		sc := hopper.NewScheduler(st, &hopper.SchedulerConfig{StoredSchedulesPoll: 10 * time.Millisecond, Logger: testutil.Logger()})
		done := make(chan struct{})
		go func() { defer close(done); _ = sc.Run(ctx) }()
		var runs []hopper.ScheduleRun
		testutil.EventuallyTrue(t, testutil.Wait, "two ticks recorded", func() bool {
			var err error
			runs, err = ins.ListScheduleRuns(ctx, "runs", "often")
			if err != nil {
				t.Fatal(err)
			}
			return len(runs) >= 2
		})
		cancel()
		<-done
		for k, r := range runs {
			j := getJob(t, st, r.Queue, r.JobID)
			if j == nil || j.Kind != "echo" || r.Manual {
				t.Fatalf("run %d %+v: job %+v", k, r, j)
			}
			if k > 0 && !r.At.Before(runs[k-1].At) {
				t.Fatalf("runs not latest first: %v then %v", runs[k-1].At, r.At)
			}
		}
		before := lastTickOf(t, ins, "runs", "often")
		info, err := ins.RunScheduleNow(context.Background(), "runs", "often")
		if err != nil {
			t.Fatal(err)
		}
		after, _ := ins.ListScheduleRuns(context.Background(), "runs", "often")
		if len(after) == 0 || after[0].JobID != info.ID || !after[0].Manual {
			t.Fatalf("after run now the latest run is %+v, want job %s by hand", after, info.ID)
		}
		if got := lastTickOf(t, ins, "runs", "often"); !got.Equal(before) {
			t.Fatalf("run now moved the last tick from %v to %v", before, got)
		}
		if _, err := ins.RunScheduleNow(context.Background(), "runs", "nope"); !errors.Is(err, hopper.ErrScheduleNotFound) {
			t.Fatalf("run now of an unknown schedule = %v, want ErrScheduleNotFound", err)
		}
	})
}

func lastTickOf(t *testing.T, ins *hopper.Inspector, queue, name string) time.Time {
	t.Helper()
	list, err := ins.ListSchedules(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Queue == queue && s.Name == name {
			return s.LastTick
		}
	}
	t.Fatalf("no schedule %s in %s", name, queue)
	return time.Time{}
}
