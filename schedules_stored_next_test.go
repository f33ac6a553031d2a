package hopper_test

import (
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestListSchedulesNextIsAhead: ListSchedules reports Next as the next
// tick after now, for a schedule in code whose registration is an hour old
// (it reported the registered tick, an hour in the past) and for a stored
// one no scheduler registered (it reported none); a paused stored
// schedule has none, also once a scheduler registered it (it reported a
// tick of the Spec it had then). RegisteredNext keeps the registered tick.
func TestListSchedulesNextIsAhead(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		ins := hopper.NewInspector(st)
		registered := time.Now().Add(-time.Hour).Truncate(time.Minute)
		if err := st.RegisterSchedules(ctx, []store.ScheduleInfo{{Name: "in-code", Queue: "default", Spec: "@every 1m", Kind: Echo{}.Kind(),
			Next: registered, SeenAt: registered.Add(-time.Second)}, {Name: "paused-registered", Queue: "default", Spec: "@every 1m", Kind: Echo{}.Kind(),
			Next: registered, SeenAt: registered.Add(-time.Second)}}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"stored", "paused", "paused-registered"} {
			if err := ins.SetSchedule(ctx, hopper.Schedule{Name: name, Spec: "@every 1h", Args: Echo{}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"paused", "paused-registered"} {
			if err := ins.PauseSchedule(ctx, hopper.DefaultQueue, name); err != nil {
				t.Fatal(err)
			}
		}

		before := time.Now()
		list, err := ins.ListSchedules(ctx)
		after := time.Now()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]hopper.ScheduleRecord{}
		for _, s := range list {
			got[s.Name] = s
		}
		for name, spec := range map[string]string{"in-code": "@every 1m", "stored": "@every 1h"} {
			lo, _ := hopper.NextTick(spec, before)
			hi, _ := hopper.NextTick(spec, after)
			if next := got[name].Next; next.Before(lo) || next.After(hi) || !next.After(before) {
				t.Errorf("%s (%s): Next %v, want the next tick after now (%v)", name, spec, next, lo)
			}
		}
		if r := got["in-code"].RegisteredNext; !r.Equal(registered) {
			t.Errorf("in-code: RegisteredNext %v, want the registered tick %v", r, registered)
		}
		for _, name := range []string{"paused", "paused-registered"} {
			if p := got[name]; !p.Paused || !p.Next.IsZero() {
				t.Errorf("%s: Paused %v, Next %v; want paused with no next tick", name, p.Paused, p.Next)
			}
		}
	})
}
