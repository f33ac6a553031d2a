package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// TestForgetStoredSchedule: Remove (forget) is for the registration of a
// schedule in code whose processes are gone; asked of a stored schedule
// (a hand-made request: its row has no Remove button) it refuses and says
// to delete it, and the schedule stays. It answered "Removed the
// registered schedule" while the schedule stayed listed and running.
func TestForgetStoredSchedule(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		ins := hopper.NewInspector(s)
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "digest", Spec: hopper.Every(time.Hour), Args: dashtest.EmailArgs{To: "all"}}); err != nil {
			t.Fatal(err)
		}
		// A scheduler running it registered it too.
		if err := s.RegisterSchedules(ctx, []store.ScheduleInfo{{Name: "digest", Spec: "@every 1h", Queue: "default", Kind: "send_email", Next: time.Now().Add(time.Hour), SeenAt: time.Now()}}); err != nil {
			t.Fatal(err)
		}
		h := newHandler(s, nil)
		for _, form := range []url.Values{{}, {"confirm": {"1"}}} {
			r := post(t, h, "/schedules/default/digest/forget", form)
			wantStatus(t, r, http.StatusConflict, "forget a stored schedule")
			wantContains(t, r.Body, "forget a stored schedule", "Cannot remove the schedule", "is stored", "Delete it instead")
		}
		scheds, err := ins.ListSchedules(ctx)
		if err != nil || len(scheds) != 1 || !scheds[0].Stored || scheds[0].LastTick.IsZero() && scheds[0].SeenAt.IsZero() {
			t.Errorf("schedules after the refused forget: %+v, %v; want digest stored and still registered", scheds, err)
		}
	})
}
