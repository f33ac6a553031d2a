package hopper_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type Webhook struct {
	Endpoint string
	Event    int
}

func (Webhook) Kind() string { return "webhook" }

// Groups give each key its own lane: here one webhook endpoint at a time
// (a cap of 1 per group), in the order its events came, while a busy
// endpoint's backlog does not hold up the quiet one.
func ExampleEnqueueOpts_group() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	ins := hopper.NewInspector(store)
	ins.SetQueueConfig(ctx, "webhooks", hopper.QueueConfig{GroupMaxRunning: 1})

	for i := 1; i <= 3; i++ {
		hopper.Enqueue(ctx, client, Webhook{Endpoint: "busy.example", Event: i}, &hopper.EnqueueOpts{Queue: "webhooks", Group: "busy.example"})
	}
	hopper.Enqueue(ctx, client, Webhook{Endpoint: "quiet.example", Event: 1}, &hopper.EnqueueOpts{Queue: "webhooks", Group: "quiet.example"})

	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wg.Add(4)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{Queues: map[string]int{"webhooks": 1}, Concurrency: 1, Prefetch: -1})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Webhook]) error {
		mu.Lock()
		order = append(order, fmt.Sprintf("%s#%d", job.Args.Endpoint, job.Args.Event))
		mu.Unlock()
		wg.Done()
		return nil
	})
	go w.Run(ctx)
	wg.Wait()
	fmt.Println(order)
	// Output: [busy.example#1 quiet.example#1 busy.example#2 busy.example#3]
}
