package hopper_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// NilVal declares Kind on the value type, NilPtr on the pointer type.
type NilVal struct{ N int }

func (NilVal) Kind() string { return "nil-val" }

type NilPtr struct{ N int }

func (*NilPtr) Kind() string { return "nil-ptr" }

// TestNilPointerArgs: a nil pointer (or a nil interface) as args is
// refused with ErrInvalidJob naming it, on every path that takes args,
// and nothing is stored. With Kind on the value type it panicked; with
// Kind on the pointer type the nil was stored and its handler got nil
// Args.
func TestNilPointerArgs(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		const q = "nil-args"
		c := hopper.NewClient(st, &hopper.ClientConfig{Queue: q})
		var val *NilVal
		var ptr *NilPtr
		enqueueWorkflow := func(args hopper.Args) error {
			wf := hopper.NewWorkflow("nil args", nil)
			hopper.AddTask(wf, "ok", Echo{}, nil)
			hopper.AddTask(wf, "bad", args, nil)
			_, err := hopper.EnqueueWorkflow(ctx, c, wf)
			return err
		}
		cases := []struct {
			name string
			do   func() error
			want string // in the error
		}{
			{"Enqueue, Kind on the value", func() error { _, err := hopper.Enqueue(ctx, c, val, nil); return err }, "args are a nil *hopper_test.NilVal"},
			{"Enqueue, Kind on the pointer", func() error { _, err := hopper.Enqueue(ctx, c, ptr, nil); return err }, "args are a nil *hopper_test.NilPtr"},
			{"Enqueue of a nil Args", func() error { _, err := hopper.Enqueue[hopper.Args](ctx, c, nil, nil); return err }, "args are nil"},
			{"EnqueueMany", func() error {
				_, err := hopper.EnqueueMany(ctx, c, []*NilPtr{{N: 1}, nil}, nil)
				return err
			}, "hopper: invalid job: job 1: args are a nil *hopper_test.NilPtr"},
			{"EnqueueAndWait", func() error { _, _, err := hopper.EnqueueAndWait[int](ctx, c, val, nil); return err }, "args are a nil *hopper_test.NilVal"},
			{"Prepare", func() error { _, err := hopper.Prepare(c, ptr, nil); return err }, "args are a nil *hopper_test.NilPtr"},
			{"PrepareMany", func() error { _, err := hopper.PrepareMany(c, []*NilVal{nil}, nil); return err }, "hopper: invalid job: job 0: args are a nil *hopper_test.NilVal"},
			{"AddTask, Kind on the value", func() error { return enqueueWorkflow(val) }, `hopper: invalid job: task "bad": args are a nil *hopper_test.NilVal`},
			{"AddTask, Kind on the pointer", func() error { return enqueueWorkflow(ptr) }, `hopper: invalid job: task "bad": args are a nil *hopper_test.NilPtr`},
			{"UpdateJob", func() error {
				info, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Queue: "nil-update"})
				if err != nil {
					return err
				}
				_, err = hopper.NewInspector(st).UpdateJob(ctx, "nil-update", info.ID, hopper.JobUpdate{Args: val})
				return err
			}, "args are a nil *hopper_test.NilVal"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var err error
				if p := panicOf(func() { err = tc.do() }); p != nil {
					t.Fatalf("panicked: %v", p)
				}
				if !errors.Is(err, hopper.ErrInvalidJob) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want ErrInvalidJob containing %q", err, tc.want)
				}
			})
		}
		t.Run("schedule", func(t *testing.T) {
			s := hopper.Schedule{Name: "nil", Spec: "@every 1m", Args: ptr}
			var err error
			if p := panicOf(func() { err = hopper.NewInspector(st).SetSchedule(ctx, s) }); p != nil {
				t.Fatalf("SetSchedule panicked: %v", p)
			}
			if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "nil *hopper_test.NilPtr") {
				t.Errorf("SetSchedule with nil args: %v, want ErrInvalidConfig naming the nil *hopper_test.NilPtr", err)
			}
			p := panicOf(func() { hopper.NewScheduler(st, &hopper.SchedulerConfig{Schedules: []hopper.Schedule{s}}) })
			if !errors.Is(p, hopper.ErrInvalidConfig) {
				t.Errorf("NewScheduler with nil args panicked with %v, want ErrInvalidConfig", p)
			}
		})
		qs, err := hopper.NewInspector(st).GetQueueStats(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if qs.Counts != (store.StateCounts{}) {
			t.Errorf("refused jobs left %+v in the queue, want nothing", qs.Counts)
		}
	})
}
