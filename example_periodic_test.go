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

// Every worker may carry the same schedules: each tick is enqueued once
// across all of them.
func ExampleSchedule() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)

	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Scheduler: &hopper.SchedulerConfig{Schedules: []hopper.Schedule{
			{Name: "cleanup", Spec: hopper.Every(20 * time.Millisecond), Args: CleanupSessions{}},
			{Name: "nightly-cleanup", Spec: "CRON_TZ=Europe/Paris 0 3 * * *", Args: CleanupSessions{}, CatchUp: true},
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

type Pulse struct{ Name string }

func (Pulse) Kind() string { return "pulse" }

// A schedule stored while the workers run starts ticking within a second,
// every worker's scheduler following it, and stops once paused.
func ExampleInspector_SetSchedule() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	ins := hopper.NewInspector(store)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{Scheduler: &hopper.SchedulerConfig{StoredSchedulesPoll: 10 * time.Millisecond}})
	ticked := make(chan string, 10)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Pulse]) error {
		ticked <- job.Args.Name
		return nil
	})
	go w.Run(ctx)

	err := ins.SetSchedule(ctx, hopper.Schedule{Name: "heartbeat", Spec: hopper.Every(20 * time.Millisecond), Args: Pulse{Name: "pulse"}})
	fmt.Println("stored:", err == nil)
	fmt.Println("ran:", <-ticked)
	fmt.Println("paused:", ins.PauseSchedule(ctx, hopper.DefaultQueue, "heartbeat") == nil)
	list, _ := ins.ListSchedules(ctx)
	fmt.Println(list[0].Name, list[0].Spec, list[0].Stored, list[0].Paused)
	// Output:
	// stored: true
	// ran: pulse
	// paused: true
	// heartbeat @every 20ms true true
}
