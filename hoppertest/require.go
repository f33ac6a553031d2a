package hoppertest

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper"
)

// RequireOpts narrows RequireEnqueued and RequireNotEnqueued. The zero
// value (or nil) looks in every queue, in the states a job waits in
// (pending, ready and retry).
type RequireOpts struct {
	// Queue to look in. Defaults to every queue of the store.
	Queue string
	// State to look in. Defaults to pending, ready and retry.
	State hopper.JobState
}

// RequireEnqueued fails t unless s holds a job of want's kind whose args
// equal want (compared after a round trip through hopper's encoding, so
// only the fields hopper stores count), in the queue and state opts name.
// It returns the first such job. The store must implement store.Admin, as
// memstore and redisstore do.
func RequireEnqueued[A hopper.Args](ctx context.Context, t T, s hopper.Store, want A, opts *RequireOpts) *hopper.JobRecord {
	t.Helper()
	found, seen := find(ctx, t, s, want, opts)
	if len(found) == 0 {
		t.Fatalf("hoppertest: no job of kind %q with args %+v is enqueued%s; jobs of that kind: %s", want.Kind(), want, where(opts), describe(seen))
	}
	return found[0]
}

// RequireNotEnqueued fails t if s holds a job of want's kind whose args
// equal want, in the queue and state opts name.
func RequireNotEnqueued[A hopper.Args](ctx context.Context, t T, s hopper.Store, want A, opts *RequireOpts) {
	t.Helper()
	if found, _ := find(ctx, t, s, want, opts); len(found) > 0 {
		t.Fatalf("hoppertest: job %s of kind %q with args %+v is enqueued%s, want none", found[0].ID, want.Kind(), want, where(opts))
	}
}

// find returns the jobs matching want and, to explain a miss, every job of
// its kind it looked at.
func find[A hopper.Args](ctx context.Context, t T, s hopper.Store, want A, opts *RequireOpts) (found, seen []*hopper.JobRecord) {
	t.Helper()
	var o RequireOpts
	if opts != nil {
		o = *opts
	}
	wantArgs, err := roundTrip(want)
	if err != nil {
		t.Fatalf("hoppertest: encoding %T: %v", want, err)
	}
	ins := hopper.NewInspector(s)
	queues := []string{o.Queue}
	if o.Queue == "" {
		if queues, err = ins.ListQueues(ctx); err != nil {
			t.Fatalf("hoppertest: listing queues: %v", err)
		}
	}
	states := []hopper.JobState{hopper.StatePending, hopper.StateReady, hopper.StateRetry}
	if o.State != "" {
		states = []hopper.JobState{o.State}
	}
	for _, q := range queues {
		for _, st := range states {
			page, err := ins.ListJobs(ctx, hopper.ListJobsOpts{Queue: q, State: st, Kind: want.Kind(), Limit: hopper.MaxListLimit})
			if err != nil {
				t.Fatalf("hoppertest: listing %s jobs of queue %q: %v", st, q, err)
			}
			for _, j := range page.Jobs {
				seen = append(seen, j)
				var got A
				if msgpack.Unmarshal(j.Args, &got) == nil && reflect.DeepEqual(got, wantArgs) {
					found = append(found, j)
				}
			}
		}
	}
	return found, seen
}

// roundTrip encodes and decodes a as hopper stores args.
func roundTrip[A any](a A) (A, error) {
	var out A
	b, err := msgpack.Marshal(a)
	if err == nil {
		err = msgpack.Unmarshal(b, &out)
	}
	return out, err
}

func where(o *RequireOpts) string {
	if o == nil || (o.Queue == "" && o.State == "") {
		return " in any queue"
	}
	var b strings.Builder
	if o.Queue != "" {
		fmt.Fprintf(&b, " in queue %q", o.Queue)
	}
	if o.State != "" {
		fmt.Fprintf(&b, " in state %s", o.State)
	}
	return b.String()
}

func describe(jobs []*hopper.JobRecord) string {
	if len(jobs) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, j := range jobs {
		if i == 5 {
			fmt.Fprintf(&b, " and %d more", len(jobs)-5)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		var v any
		_ = msgpack.Unmarshal(j.Args, &v)
		fmt.Fprintf(&b, "%s in %s/%s with %v", j.ID, j.Queue, j.State, v)
	}
	return b.String()
}
