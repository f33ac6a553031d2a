package hopper_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// A Scheduler can run on its own, for example in a process that runs no
// worker; every Worker also runs one for its queues by default.
func ExampleNewScheduler() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)

	info, _ := hopper.Enqueue(ctx, client, SendEmail{}, &hopper.EnqueueOpts{Delay: 20 * time.Millisecond})
	fmt.Println("enqueued:", info.State)

	s := hopper.NewScheduler(store, &hopper.SchedulerConfig{Queues: []string{hopper.DefaultQueue}})
	go s.Run(ctx)
	rec := waitFor(store, info.ID, hopper.StateReady)
	fmt.Println("after its delay:", rec.State)
	// Output:
	// enqueued: pending
	// after its delay: ready
}
