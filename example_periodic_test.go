package hopper_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type CleanupSessions struct{}

func (CleanupSessions) Kind() string { return "cleanup_sessions" }

// Every worker may carry the same periodic jobs: each tick is enqueued once
// across all of them.
func ExamplePeriodicJob() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)

	nightly, err := hopper.ParseSchedule("CRON_TZ=Europe/Paris 0 3 * * *")
	if err != nil {
		panic(err)
	}
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Scheduler: &hopper.SchedulerConfig{Periodic: []hopper.PeriodicJob{
			{Name: "cleanup", Schedule: hopper.Every(20 * time.Millisecond), Args: CleanupSessions{}},
			{Name: "nightly-cleanup", Schedule: nightly, Args: CleanupSessions{}, CatchUp: true},
		}},
	})
	ticks := make(chan time.Time)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[CleanupSessions]) error {
		select {
		case ticks <- job.RunAt: // a periodic job runs at its tick
		case <-ctx.Done():
		}
		return nil
	})
	go w.Run(ctx)

	first, second := <-ticks, <-ticks
	fmt.Println("ticks 20ms apart:", second.Sub(first) == 20*time.Millisecond)
	// Output: ticks 20ms apart: true
}
