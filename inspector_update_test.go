package hopper_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/vmihailenco/msgpack/v5"
)

// UpdateJob on both stores: reschedules and re-args waiting jobs, refuses
// running and ended ones, and never brings back a job that is gone.
func TestInspectorUpdateJob(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		{
			ctx := t.Context()
			st := open()
			c := hopper.NewClient(st, nil)
			ins := hopper.NewInspector(st)
			info, err := hopper.Enqueue(ctx, c, Echo{N: 1}, &hopper.EnqueueOpts{Delay: time.Hour, Meta: map[string]string{"m": "kept"}})
			if err != nil {
				t.Fatal(err)
			}
			soon := time.Now().Add(2 * time.Hour).Truncate(time.Millisecond)
			rec, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{RunAt: soon, Args: Echo{N: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if rec.State != hopper.StatePending || !rec.RunAt.Equal(soon) || rec.Meta["m"] != "kept" {
				t.Fatalf("after UpdateJob: %s due %v meta %v, want pending due %v with its meta", rec.State, rec.RunAt, rec.Meta, soon)
			}
			rec, err = ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{RunAt: time.Now()})
			if err != nil || rec.State != hopper.StateReady {
				t.Fatalf("UpdateJob to now: %v, %v; want the job ready", rec, err)
			}
			w := hopper.NewWorker(st, testConfig("default"))
			got, release := make(chan int, 1), make(chan struct{})
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
				got <- j.Args.N
				<-release // runs until the test has tried to change it
				return nil
			})
			stop := startWorker(t, w)
			if n := <-got; n != 2 {
				t.Fatalf("the job ran with N=%d, want the updated 2", n)
			}
			if _, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{Args: Echo{N: 3}}); !errors.Is(err, hopper.ErrInvalidState) {
				t.Fatalf("UpdateJob of a running job: %v, want ErrInvalidState", err)
			}
			close(release)
			stop()
			if _, err := ins.UpdateJob(ctx, "default", "no-such-job", hopper.JobUpdate{RunAt: time.Now()}); !errors.Is(err, hopper.ErrJobNotFound) {
				t.Fatalf("UpdateJob of an unknown job: %v, want ErrJobNotFound", err)
			}
			if _, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{}); !errors.Is(err, hopper.ErrInvalidJob) {
				t.Fatalf("UpdateJob with nothing to change: %v, want ErrInvalidJob", err)
			}
		}
	})
}

// UpdateJob with a Priority moves a ready job to the back of its new
// level: workers take it before the jobs of the old level, and the job
// keeps its args.
func TestInspectorUpdatePriority(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		c := hopper.NewClient(st, nil)
		ins := hopper.NewInspector(st)
		var ids []string
		for n := range 3 {
			info, err := hopper.Enqueue(ctx, c, Echo{N: n}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, info.ID)
		}
		high := 2
		rec, err := ins.UpdateJob(ctx, "default", ids[2], hopper.JobUpdate{Priority: &high})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Priority != 2 || rec.State != hopper.StateReady {
			t.Fatalf("after UpdateJob to priority 2: priority %d, %s; want 2, ready", rec.Priority, rec.State)
		}
		page, err := ins.ListJobs(ctx, hopper.ListJobsOpts{Queue: "default", State: hopper.StateReady})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, j := range page.Jobs {
			order = append(order, j.ID)
		}
		if want := []string{ids[2], ids[0], ids[1]}; !slices.Equal(order, want) {
			t.Fatalf("ready after raising the last job's priority: %v, want %v", order, want)
		}
		bad := hopper.MaxPriority + 1
		if _, err := ins.UpdateJob(ctx, "default", ids[0], hopper.JobUpdate{Priority: &bad}); !errors.Is(err, hopper.ErrInvalidJob) {
			t.Fatalf("UpdateJob to priority %d: %v, want ErrInvalidJob", bad, err)
		}
		cfg := testConfig("default")
		cfg.Concurrency, cfg.Prefetch = 1, -1 // one job at a time, in claim order
		w := hopper.NewWorker(st, cfg)
		got := make(chan int, 3)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			got <- j.Args.N
			return nil
		})
		stop := startWorker(t, w)
		defer stop()
		if n := <-got; n != 2 {
			t.Fatalf("the first job run had N=%d, want 2 (raised to priority 2)", n)
		}
	})
}

// UpdateJob with EncodedArgs replaces a waiting job's args with operator
// bytes, keeping its kind, and refuses bytes that are not msgpack.
func TestInspectorUpdateEncodedArgs(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		ins := hopper.NewInspector(st)
		info, err := hopper.Enqueue(ctx, hopper.NewClient(st, nil), Echo{N: 1}, &hopper.EnqueueOpts{Delay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		b, err := msgpack.Marshal(Echo{N: 7})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{EncodedArgs: b})
		if err != nil || rec.Kind != (Echo{}).Kind() || string(rec.Args) != string(b) {
			t.Fatalf("UpdateJob with EncodedArgs: %+v, %v; want the new args under the same kind", rec, err)
		}
		if _, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{EncodedArgs: []byte{0xdc, 0xff, 0xff}}); !errors.Is(err, hopper.ErrInvalidJob) {
			t.Fatalf("UpdateJob with truncated msgpack: %v, want ErrInvalidJob", err)
		}
	})
}

// TestInspectorUpdateKeepsUniqueKey: a unique job changed by UpdateJob
// keeps its unique key, as its record shows, and still holds it: a second
// job with the key is a duplicate naming it.
func TestInspectorUpdateKeepsUniqueKey(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		c := hopper.NewClient(st, nil)
		ins := hopper.NewInspector(st)
		unique := &hopper.EnqueueOpts{Delay: time.Hour, Unique: &hopper.UniqueOpts{Key: "report:7", For: 2 * time.Hour}}
		info, err := hopper.Enqueue(ctx, c, Echo{N: 1}, unique)
		if err != nil {
			t.Fatal(err)
		}
		prio := 2
		for _, u := range []hopper.JobUpdate{{Args: Echo{N: 2}}, {Priority: &prio}, {RunAt: time.Now().Add(3 * time.Hour)}} {
			rec, err := ins.UpdateJob(ctx, "default", info.ID, u)
			if err != nil {
				t.Fatal(err)
			}
			if rec.UniqueKey != "report:7" || rec.UniqueFor != 2*time.Hour {
				t.Errorf("after UpdateJob(%+v): UniqueKey %q, UniqueFor %v; want report:7 and 2h kept", u, rec.UniqueKey, rec.UniqueFor)
			}
		}
		dup, err := hopper.Enqueue(ctx, c, Echo{N: 3}, unique)
		if err != nil {
			t.Fatal(err)
		}
		if !dup.Duplicate || dup.ID != info.ID {
			t.Errorf("a second job with the key after the updates: %+v; want a duplicate of %s", dup, info.ID)
		}
	})
}
