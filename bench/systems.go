package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// System is one job queue under test, connected to one Redis server. A
// fresh System is opened for every run and closed after it.
type System interface {
	// Enqueue adds one job with payload p to queue, to run after delay
	// (zero: at once), with one library call.
	Enqueue(ctx context.Context, queue string, p []byte, delay time.Duration) error
	// StartWorkers starts consuming queue with the given concurrency and
	// calls handle, first thing in the library's handler, with the payload
	// of every job it delivers; the job succeeds. stop shuts the consumers
	// down gracefully and returns only when they have stopped.
	StartWorkers(queue string, concurrency int, handle func(p []byte)) (stop func() error, err error)
	// Close releases the System's connections.
	Close() error
}

// BatchEnqueuer is implemented by a System whose library can add many jobs
// in one call; the batch workload reports n/a for the others.
type BatchEnqueuer interface {
	// EnqueueBatch adds one job per payload to queue with one library call.
	EnqueueBatch(ctx context.Context, queue string, ps [][]byte) error
}

// opener opens a System on the Redis server at addr.
type opener func(addr string) (System, error)

// systems lists every system the benchmark can run, by name.
var systems = map[string]opener{
	"hopper": openHopper,
	"asynq":  openAsynq,
}

// baseline is the system the ratio column divides by.
const baseline = "asynq"

// subject is the system the ratio column puts in the numerator.
const subject = "hopper"

// parseSystems validates a comma-separated list of system names.
func parseSystems(list string) ([]string, error) {
	var out []string
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if _, ok := systems[name]; !ok {
			return nil, fmt.Errorf("unknown system %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(systems)), ", "))
		}
		if slices.Contains(out, name) {
			return nil, fmt.Errorf("system %q given twice", name)
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no system given")
	}
	return out, nil
}
