package redisstore_test

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/redisstore"
)

type Resize struct{ Image string }

func (Resize) Kind() string { return "resize" }

// A queue hot enough to need more than one master: with Partitions, its
// jobs are spread over six hash slots, two on each master of a
// three-master Cluster. Producers and workers name the queue as usual; a
// job of a group stays in one partition, so the group's order and limits
// hold. A worker process that starts after the queue was declared needs no
// setting: it reads the count from Redis.
func ExampleOptions_partitions() {
	ctx := context.Background()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:7000"}})
	st := redisstore.New(rdb, &redisstore.Config{Partitions: map[string]int{"images": 6}})

	client := hopper.NewClient(st, nil)
	_, err := hopper.Enqueue(ctx, client, Resize{Image: "cat.png"}, &hopper.EnqueueOpts{Queue: "images", Group: "tenant-42"})
	if err != nil {
		fmt.Println(err)
	}

	w := hopper.NewWorker(st, &hopper.WorkerConfig{Queues: map[string]int{"images": 1}})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Resize]) error {
		fmt.Println("resizing", job.Args.Image, "from", job.Queue) // "images~3", say
		return nil
	})
	_ = w.Run(ctx)
}
