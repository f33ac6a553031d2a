package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// errRefused is what refusingValue's MarshalMsgpack fails with.
var errRefused = errors.New("refusing to encode")

// refusingValue is a value whose MarshalMsgpack fails with errRefused.
type refusingValue struct{}

func (refusingValue) MarshalMsgpack() ([]byte, error) { return nil, errRefused }

// RefusedArgs are args msgpack cannot encode because a field's
// MarshalMsgpack fails.
type RefusedArgs struct{ V refusingValue }

func (RefusedArgs) Kind() string { return "refused" }

// TestArgsThatDoNotEncode: args msgpack cannot encode (a channel in them,
// a MarshalMsgpack that fails) are refused on every path that encodes
// args with an error wrapping ErrInvalidJob and msgpack's error, naming
// the args' type and saying "hopper:" once; Enqueue's doc promised
// ErrInvalidJob, and the error ("hopper: encode args of kind ...")
// wrapped no sentinel. A result or progress data that does not encode
// says so, not "args".
func TestArgsThatDoNotEncode(t *testing.T) {
	ctx := t.Context()
	st := newStore()
	c := hopper.NewClient(st, nil)
	ins := hopper.NewInspector(st)
	waiting, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		name  string
		args  hopper.Args
		cause error  // in the chain, when the test can name it
		text  string // msgpack's text
	}{
		{"a channel", Unencodable{C: make(chan int)}, nil, "msgpack: Encode(unsupported chan int)"},
		{"a failing MarshalMsgpack", RefusedArgs{}, errRefused, errRefused.Error()},
	} {
		t.Run(a.name, func(t *testing.T) {
			workflow := func() error {
				wf := hopper.NewWorkflow("bad args", nil)
				hopper.AddTask(wf, "ok", Echo{}, nil)
				hopper.AddTask(wf, "bad", a.args, nil)
				_, err := hopper.EnqueueWorkflow(ctx, c, wf)
				return err
			}
			schedule := hopper.Schedule{Name: "bad-args", Spec: "@every 1m", Args: a.args}
			cases := []struct {
				name  string
				err   error
				what  string  // what did not encode
				extra []error // sentinels wrapped as well
			}{
				{"Enqueue", func() error { _, err := hopper.Enqueue(ctx, c, a.args, nil); return err }(), "args", nil},
				{"EnqueueMany", func() error { _, err := hopper.EnqueueMany(ctx, c, []hopper.Args{Echo{}, a.args}, nil); return err }(), "args", nil},
				{"EnqueueAndWait", func() error { _, _, err := hopper.EnqueueAndWait[int](ctx, c, a.args, nil); return err }(), "args", nil},
				{"Prepare", func() error { _, err := hopper.Prepare(c, a.args, nil); return err }(), "args", nil},
				{"PrepareMany", func() error { _, err := hopper.PrepareMany(c, []hopper.Args{a.args}, nil); return err }(), "args", nil},
				{"EnqueueWorkflow", workflow(), "args", nil},
				{"SetSchedule", ins.SetSchedule(ctx, schedule), "args", []error{hopper.ErrInvalidConfig}},
				{"SchedulerConfig.Validate", hopper.SchedulerConfig{Schedules: []hopper.Schedule{schedule}}.Validate(), "args", []error{hopper.ErrInvalidConfig}},
				{"UpdateJob", func() error {
					_, err := ins.UpdateJob(ctx, "default", waiting.ID, hopper.JobUpdate{Args: a.args})
					return err
				}(), "args", nil},
				{"RecordResult", hopper.RecordResult(context.Background(), a.args), "result", nil},
				{"Progress", hopper.Progress(context.Background(), 50, a.args), "progress data", nil},
			}
			for _, tc := range cases {
				checkSaidOnce(t, tc.name, tc.err, append([]error{hopper.ErrInvalidJob}, tc.extra...)...)
				if tc.err == nil {
					continue
				}
				if a.cause != nil && !errors.Is(tc.err, a.cause) {
					t.Errorf("%s: %q does not wrap msgpack's error %q", tc.name, tc.err, a.cause)
				}
				if want := fmt.Sprintf("cannot encode %s of type %T: %s", tc.what, a.args, a.text); !strings.Contains(tc.err.Error(), want) {
					t.Errorf("%s: %q, want it to say %q", tc.name, tc.err, want)
				}
			}
		})
	}
	// Before the store is called, as UpdateJob's doc says: args that do
	// not encode say so for a job that does not exist too (it said
	// ErrJobNotFound, having read the job first).
	_, err = ins.UpdateJob(ctx, "default", "no-such-job", hopper.JobUpdate{Args: RefusedArgs{}})
	if !errors.Is(err, hopper.ErrInvalidJob) || errors.Is(err, hopper.ErrJobNotFound) {
		t.Errorf("UpdateJob of an unknown job with args that do not encode: %v, want ErrInvalidJob before any read", err)
	}
	qs, err := ins.GetQueueStats(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if qs.Counts.Pending != 1 || qs.Counts.Ready != 0 {
		t.Errorf("the refused jobs left %+v in the queue, want only the waiting job", qs.Counts)
	}
}
