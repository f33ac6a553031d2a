package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

var demoQueues = map[string]int{"critical": 6, "default": 3, "low": 1}

// runDemo runs producers and a worker on an in-memory store, serves the
// dashboard for it on a loopback port and prints a live one-line summary
// until ctx is done or --duration passes.
func runDemo(ctx context.Context, a *app, args []string) error {
	stdout, stderr := a.stdout, a.stderr
	fs := newFlags("demo", "hopper demo [--duration D] [--rate N] [--concurrency N] [--workflow-every D] [--addr host:port]", stderr)
	duration := fs.Duration("duration", 0, "stop after this long (default: run until interrupted)")
	rate := fs.Int("rate", 100, "jobs enqueued per second")
	concurrency := fs.Int("concurrency", 20, "jobs run at once")
	workflowEvery := fs.Duration("workflow-every", 5*time.Second, "enqueue a demo workflow (an ETL chain or a fan-out and fan-in, in turn) this often; 0 turns them off")
	addr := fs.String("addr", "127.0.0.1:8080", "loopback address of the demo's dashboard; a port in use falls back to a free one; empty turns the dashboard off")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badUsage(fs, "unexpected argument %q", pos[0])
	}
	if *rate < 1 || *concurrency < 1 {
		return badUsage(fs, "--rate and --concurrency must be at least 1")
	}
	if *workflowEvery < 0 {
		return badUsage(fs, "--workflow-every must not be negative")
	}
	if *duration < 0 {
		return badUsage(fs, "--duration must not be negative (leave it out to run until interrupted)")
	}
	if err := checkDemoAddr(*addr); err != nil {
		return badUsage(fs, "%v", err)
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}

	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	var done atomic.Int64
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Queues:      demoQueues,
		Concurrency: *concurrency,
		Lease:       5 * time.Second,
		// Short backoffs so retries show within the demo.
		Backoff: func(attempt int, _ error) time.Duration { return time.Duration(attempt) * time.Second },
		Logger:  slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Scheduler: &hopper.SchedulerConfig{
			GarbageMaxCount: 1000,
			Schedules: []hopper.Schedule{{
				Name: "quarter-minute-report",
				Spec: hopper.Every(15 * time.Second),
				Args: BuildReport{Month: "2026-11"},
				Opts: &hopper.ScheduleOpts{Queue: "low", MaxRetries: 2},
			}},
		},
	})
	w.Use(countAcks(&done))
	registerDemoHandlers(w)
	registerDemoWorkflowHandlers(w)

	dash, err := startDemoDashboard(ctx, *addr, store, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "hopper demo: %d jobs/s into queues critical, default and low on the in-memory store", *rate)
	if *workflowEvery > 0 {
		fmt.Fprintf(stdout, ", a workflow every %s", *workflowEvery)
	}
	fmt.Fprintln(stdout, "; Ctrl-C to stop")
	if dash != nil {
		fmt.Fprintf(stdout, "dashboard: %s\n", dash.url)
	}
	workerDone := make(chan error, 1)
	go func() { workerDone <- w.Run(ctx) }()

	var enqueued, workflows atomic.Int64
	go produce(ctx, client, *rate, &enqueued, stderr)
	if *workflowEvery > 0 {
		go produceWorkflows(ctx, client, *workflowEvery, &workflows, stderr)
	}

	tty := isTerminal(stdout)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	last, lastAt := int64(0), time.Now()
	for {
		select {
		case <-ctx.Done():
			err := <-workerDone
			if dash != nil {
				if derr := <-dash.done; err == nil {
					err = derr
				}
			}
			fmt.Fprintln(stdout)
			printProgress(context.Background(), stdout, hopper.NewInspector(store), enqueued.Load(), done.Load(), 0, false)
			if n := workflows.Load(); n > 0 {
				fmt.Fprintf(stdout, "workflows enqueued: %d\n", n)
			}
			fmt.Fprintln(stdout, "stopped")
			return err
		case now := <-tick.C:
			d := done.Load()
			perSec := float64(d-last) / now.Sub(lastAt).Seconds()
			last, lastAt = d, now
			printProgress(ctx, stdout, hopper.NewInspector(store), enqueued.Load(), d, perSec, tty)
		}
	}
}

// produce enqueues rate jobs per second until ctx is done.
func produce(ctx context.Context, c *hopper.Client, rate int, n *atomic.Int64, stderr io.Writer) {
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := enqueueDemoJob(ctx, c, int(n.Load())); err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(stderr, "enqueue:", err)
				}
				continue
			}
			n.Add(1)
		}
	}
}

// countAcks counts jobs whose handler succeeded.
func countAcks(n *atomic.Int64) hopper.Middleware {
	return func(next hopper.Handler) hopper.Handler {
		return hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
			err := next.Handle(ctx, job)
			if err == nil {
				n.Add(1)
			}
			return err
		})
	}
}

// printProgress prints the one-line summary; on a terminal it rewrites the
// same line.
func printProgress(ctx context.Context, w io.Writer, s *hopper.Inspector, enqueued, done int64, perSec float64, tty bool) {
	var c store.StateCounts
	for q := range demoQueues {
		st, err := s.GetQueueStats(ctx, q)
		if err != nil {
			continue
		}
		c.Pending += st.Counts.Pending
		c.Ready += st.Counts.Ready
		c.Unack += st.Counts.Unack
		c.Retry += st.Counts.Retry
		c.Garbage += st.Counts.Garbage
	}
	line := fmt.Sprintf("enqueued %6d  delayed %4d  ready %4d  running %3d  retrying %4d  dead %4d  done %6d  %6.0f jobs/s",
		enqueued, c.Pending, c.Ready, c.Unack, c.Retry, c.Garbage, done, perSec)
	if tty {
		fmt.Fprintf(w, "\r%s", line)
		return
	}
	fmt.Fprintln(w, line)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
