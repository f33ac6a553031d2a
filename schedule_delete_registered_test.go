package hopper_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestDeletedStoredScheduleLeavesNoGhost: a stored schedule that
// schedulers ran (and so registered) is gone from ListSchedules once
// deleted, and deleting it again says it is not found; it stayed listed
// as if declared in code, and a second delete said it was declared in
// code.
func TestDeletedStoredScheduleLeavesNoGhost(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		ins := hopper.NewInspector(st)
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "nightly", Spec: "@daily", Args: Echo{}}); err != nil {
			t.Fatal(err)
		}
		// What a Scheduler running it does.
		now := time.Now()
		next, _ := hopper.NextTick("@daily", now)
		if err := st.RegisterSchedules(ctx, []store.ScheduleInfo{{Name: "nightly", Queue: hopper.DefaultQueue, Spec: "@daily", Kind: Echo{}.Kind(), Next: next, SeenAt: now}}); err != nil {
			t.Fatal(err)
		}
		if err := ins.DeleteSchedule(ctx, hopper.DefaultQueue, "nightly"); err != nil {
			t.Fatal(err)
		}
		list, err := ins.ListSchedules(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if s.Name == "nightly" {
				t.Fatalf("ListSchedules after DeleteSchedule lists %+v", s)
			}
		}
		err = ins.DeleteSchedule(ctx, hopper.DefaultQueue, "nightly")
		if !errors.Is(err, hopper.ErrScheduleNotFound) || strings.Contains(err.Error(), "declared in code") {
			t.Fatalf("deleting it again: %v; want ErrScheduleNotFound, not 'declared in code'", err)
		}
	})
}
