package sched

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// TestPeriodicWithoutTicksStops: a schedule whose Next has no tick (the
// zero time, as a cron expression of dates that never occur gives) beside
// a ticking one: the loop keeps firing the other and returns when its
// context ends. It spun on the zero time and never returned.
func TestPeriodicWithoutTicksStops(t *testing.T) {
	st := memstore.New(nil)
	ctx, cancel := context.WithCancel(t.Context())
	fired := make(chan time.Time, 16)
	job := func(tick time.Time) (*store.NewJob, error) {
		return &store.NewJob{ID: "t" + tick.Format("150405.000"), Queue: "default", Kind: "k", Args: []byte{0x80}}, nil
	}
	cfg := PeriodicConfig{
		Jobs: []Periodic{
			{Name: "never", Spec: "0 0 30 2 *", Queue: "default", Kind: "k", CatchUp: true, Job: job,
				Next: func(time.Time) time.Time { return time.Time{} }},
			{Name: "often", Spec: "@every 10ms", Queue: "default", Kind: "k", Job: job,
				Next: func(t time.Time) time.Time { return t.Truncate(10 * time.Millisecond).Add(10 * time.Millisecond) }},
		},
		Enqueue: func(ctx context.Context, jobs []*store.NewJob) error {
			for _, j := range jobs {
				select {
				case fired <- j.RunAt:
				default:
				}
			}
			return nil
		},
		Now:    time.Now,
		Logger: slog.New(slog.DiscardHandler),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunPeriodic(ctx, st, cfg)
	}()
	for range 3 {
		select {
		case <-fired:
		case <-time.After(30 * time.Second):
			t.Fatal("the ticking schedule did not fire beside one without ticks")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("RunPeriodic did not return after its context ended, with a schedule without ticks")
	}
}
