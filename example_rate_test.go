package hopper_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// A partner's API takes 20 calls a second and no burst: RateSmooth paces
// the queue's starts one every 50 ms or so (across every worker), where a
// plain RateLimit would let a second's 20 start at once. RateBurst would
// let a few start at once after a quiet spell.
func ExampleQueueConfig_smooth() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	err := hopper.NewInspector(store).SetQueueConfig(ctx, "partner", hopper.QueueConfig{
		RateLimit:  20,
		RatePeriod: time.Second,
		RateSmooth: true, // one start every RatePeriod/RateLimit, and a twentieth
		RateBurst:  0,    // none ahead of the pace
	})
	if err != nil {
		panic(err)
	}
	w := hopper.NewWorker(store, &hopper.WorkerConfig{Queues: map[string]int{"partner": 1}, Concurrency: 8})
	var mu sync.Mutex
	var starts []time.Time
	all := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		mu.Lock()
		defer mu.Unlock()
		if starts = append(starts, time.Now()); len(starts) == 5 {
			close(all)
		}
		return nil
	})
	go w.Run(ctx)
	_, _ = hopper.EnqueueMany(ctx, hopper.NewClient(store, nil), make([]SendEmail, 5), &hopper.EnqueueOpts{Queue: "partner"})
	<-all
	mu.Lock()
	defer mu.Unlock()
	// Four intervals of 52.5 ms lie between the first start and the fifth,
	// less the 20 ms (two fifths of 50 ms) a worker may start a job late:
	// at least 190 ms.
	fmt.Println(len(starts), starts[4].Sub(starts[0]) >= 187*time.Millisecond)
	// Output: 5 true
}
