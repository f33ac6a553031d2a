package redisstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

type idleArgs struct{ N int }

func (idleArgs) Kind() string { return "idle" }

// sentCommands counts the commands a client sends (its hook is note),
// pipelined ones included (a script counts as one: what it runs inside
// Redis is not a command the client sent). The handshake of a new
// connection (HELLO, CLIENT SETINFO) is the pool's, not the worker's, and
// is not counted: a dial in the window made runs flaky.
type sentCommands struct{ n atomic.Int64 }

func (c *sentCommands) note(cmd redis.Cmder) {
	if name := cmd.Name(); name != "hello" && name != "client" {
		c.n.Add(1)
	}
}

// TestIdleWorkerIsQuiet runs a whole Worker with its defaults (claims, its
// scheduler, lease renewal, heartbeats) on two empty queues: it sends a
// handful of commands per second, not a poll loop, and a job enqueued by
// another client still starts at once, long before its blocking command
// would time out.
func TestIdleWorkerIsQuiet(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Private())
	prefix := redistest.Prefix(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	client := srv.Client(t)
	var sent sentCommands
	client.AddHook(eachCommand(sent.note))
	rs := storeOn(t, client, &redisstore.Config{Prefix: prefix})
	w := hopper.NewWorker(rs, &hopper.WorkerConfig{Queues: map[string]int{"a": 1, "b": 1}})
	started := make(chan time.Time, 1)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[idleArgs]) error {
		started <- time.Now()
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	// Settled: the worker has registered itself.
	admin := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: prefix})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ws, err := hopper.NewInspector(admin).ListWorkers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker never registered")
		}
	}

	// An idle worker's commands come in cycles: a heartbeat and, per
	// queue, a claim and a Maintain every 5 s; the stored schedules'
	// version every second; the workflow sweep every 2 s. A window of
	// whole cycles holds the same count wherever it starts (about 38
	// commands in 10 s); a 6 s window held one or two of the 5 s cycles,
	// 19 to 32 commands, and failed on the second at 5.3 a second.
	const window = 10 * time.Second
	before := sent.n.Load()
	time.Sleep(window) // the measurement window, not a synchronisation
	cmds := sent.n.Load() - before
	perSec := float64(cmds) / window.Seconds()
	t.Logf("an idle worker on two queues sent %d commands in %v (%.1f per second)", cmds, window, perSec)
	if perSec > 5 {
		t.Errorf("an idle worker sent %.1f commands per second, want at most a handful", perSec)
	}

	enqueued := time.Now()
	if _, err := hopper.Enqueue(ctx, hopper.NewClient(admin, nil), idleArgs{N: 1}, &hopper.EnqueueOpts{Queue: "b"}); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-started:
		t.Logf("the job started %v after its enqueue", at.Sub(enqueued))
		if d := at.Sub(enqueued); d > time.Second {
			t.Errorf("the job started %v after its enqueue; the waiting worker should wake at once (its idle wait is 5s)", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the job never started")
	}
}
