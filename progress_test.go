package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// countedStore counts the Extend calls a worker makes.
type countedStore struct {
	hopper.Store
	extends atomic.Int32
}

func (s *countedStore) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	s.extends.Add(1)
	return s.Store.Extend(ctx, refs, lease)
}

func TestProgressRidesTheLeaseRenewal(t *testing.T) {
	mem := newStore()
	s := &countedStore{Store: mem}
	c := hopper.NewClient(mem, nil)
	cfg := testConfig("default")
	// No renewal while the handler runs: only its reports could cause an
	// Extend call.
	cfg.Lease, cfg.RenewInterval = time.Hour, 20*time.Minute
	w := hopper.NewWorker(s, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		for i := 1; i <= 1000; i++ {
			if err := hopper.Progress(ctx, float64(i)/10, map[string]int{"done": i}); err != nil {
				return err
			}
			if err := hopper.Log(ctx, fmt.Sprintf("step %d", i)); err != nil {
				return err
			}
		}
		return nil
	})
	info, err := hopper.Enqueue(t.Context(), c, Echo{}, &hopper.EnqueueOpts{Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	// 2000 reports, one store call: the last report, sent before the ack.
	if n := s.extends.Load(); n != 1 {
		t.Fatalf("a handler that reported 2000 times made %d Extend calls, want 1", n)
	}
	p := getJob(t, mem, "default", info.ID).Progress
	if p == nil || p.Percent != 100 || len(p.Log) != store.MaxLogLines || p.Log[len(p.Log)-1].Text != "step 1000" || p.Log[0].Text != "step 901" {
		t.Fatalf("progress kept with the job: %+v, want 100%% and the last %d lines", p, store.MaxLogLines)
	}
}

func TestProgressLimits(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, testConfig("default"))
	errs := make(chan error, 4)
	long := strings.Repeat("é", store.MaxLogLineBytes)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		errs <- hopper.Progress(ctx, 101, nil)
		errs <- hopper.Progress(ctx, 50, make([]byte, store.MaxProgressBytes+1))
		errs <- hopper.Progress(ctx, 50, "fits")
		errs <- hopper.Log(ctx, long)
		return nil
	})
	info, err := hopper.Enqueue(t.Context(), c, Echo{}, &hopper.EnqueueOpts{Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i, want := range []error{hopper.ErrInvalidConfig, hopper.ErrInvalidConfig, nil, nil} {
		if err := <-errs; !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("report %d: %v, want %v", i, err, want)
		}
	}
	p := getJob(t, s, "default", info.ID).Progress
	if p == nil || len(p.Log) != 1 || len(p.Log[0].Text) > store.MaxLogLineBytes || !strings.HasSuffix(p.Log[0].Text, "…") {
		t.Fatalf("a log line of %d bytes was kept as %+v, want it cut to at most %d bytes, ending in …", len(long), p, store.MaxLogLineBytes)
	}
	if err := hopper.Progress(t.Context(), 1, nil); err == nil {
		t.Error("Progress outside a handler: nil error")
	}
	if err := hopper.Log(t.Context(), "x"); err == nil {
		t.Error("Log outside a handler: nil error")
	}
}
