package hopper_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// registrations is a store that keeps what its schedulers register.
type registrations struct {
	store.Store
	mu   sync.Mutex
	seen []store.ScheduleInfo
}

func (r *registrations) Unwrap() store.Store { return r.Store }

func (r *registrations) RegisterSchedules(ctx context.Context, list []store.ScheduleInfo) error {
	r.mu.Lock()
	r.seen = append(r.seen, list...)
	r.mu.Unlock()
	return r.Store.RegisterSchedules(ctx, list)
}

// registered returns what the schedulers registered of schedule name.
func (r *registrations) registered(name string) []store.ScheduleInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []store.ScheduleInfo
	for _, si := range r.seen {
		if si.Name == name {
			out = append(out, si)
		}
	}
	return out
}

// TestSchedulerRegistersStoredAsStored: a Scheduler registers a stored
// schedule it runs as stored (store.ScheduleInfo.Stored), so that the
// store records it only while it is stored, and one declared in code as
// not stored; after the stored one is deleted, a registration of it from
// a scheduler that has not seen the deletion yet lists it no more. (A
// scheduler that registered it once a minute listed it again after
// DeleteSchedule until someone forgot it.)
func TestSchedulerRegistersStoredAsStored(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := &registrations{Store: open()}
		ins := hopper.NewInspector(st)
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "stored", Spec: "@daily", Args: Tick{Name: "stored"}}); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig("default")
		cfg.Scheduler = &hopper.SchedulerConfig{StoredSchedulesPoll: 10 * time.Millisecond,
			Schedules: []hopper.Schedule{{Name: "code", Spec: "@daily", Args: Tick{Name: "code"}}}}
		w := hopper.NewWorker(st, cfg)
		hopper.Handle(w, func(context.Context, *hopper.Job[Tick]) error { return nil })
		stop := startWorker(t, w)
		defer stop()
		testutil.EventuallyTrue(t, 10*time.Second, "both registered", func() bool {
			return len(st.registered("stored")) > 0 && len(st.registered("code")) > 0
		})
		for _, si := range st.registered("stored") {
			if !si.Stored {
				t.Fatalf("the stored schedule registered as declared in code: %+v", si)
			}
		}
		for _, si := range st.registered("code") {
			if si.Stored {
				t.Fatalf("the schedule declared in code registered as stored: %+v", si)
			}
		}
		// A scheduler that has not seen the deletion registers it again.
		again := st.registered("stored")[0]
		if err := ins.DeleteSchedule(ctx, hopper.DefaultQueue, "stored"); err != nil {
			t.Fatal(err)
		}
		if err := st.Store.RegisterSchedules(ctx, []store.ScheduleInfo{again}); err != nil {
			t.Fatal(err)
		}
		list, err := ins.ListSchedules(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if s.Name == "stored" {
				t.Fatalf("ListSchedules after DeleteSchedule and a late registration lists %+v", s)
			}
		}
	})
}
