// Package hopper runs background jobs on Redis: typed jobs, delayed jobs,
// acknowledgements with leases, retries with backoff, dead jobs kept for
// inspection, periodic jobs, and a web dashboard. Any number of producers,
// workers and schedulers run side by side with no leader: every move of a
// job is one atomic step in the store.
//
// # Jobs and args
//
// A job's arguments are a Go type that names its kind, a stable name stored
// with the job:
//
//	type SendEmail struct {
//		To      string
//		Subject string
//	}
//
//	func (SendEmail) Kind() string { return "send_email" }
//
// Args are encoded with msgpack (fields by name, so adding or removing a
// field stays compatible with jobs already enqueued). A type can carry its
// own default options by implementing ArgsWithOpts.
//
// # Enqueueing
//
// A Client enqueues into a Store; Enqueue stores one job, EnqueueMany a
// batch of one type in one store call:
//
//	client := hopper.NewClient(store, nil)
//	info, err := hopper.Enqueue(ctx, client, SendEmail{To: "a@example.com"}, &hopper.EnqueueOpts{Delay: time.Minute})
//
// EnqueueOpts chooses the queue, a delay or run time, retries, a timeout,
// a retention for the finished job, metadata, an ID that makes the enqueue
// idempotent, and uniqueness (UniqueOpts). Once Enqueue returns without
// error the job is stored.
//
// To enqueue in the application's SQL transaction (a job if and only if
// the transaction commits), module github.com/hopperq/hopper/outbox writes
// Prepare'd jobs into an outbox table and a relay stores them with
// EnqueuePrepared.
//
// # Workflows
//
// A Workflow declares tasks (jobs) and the dependencies between them: a
// task runs once its dependencies have been acked (see Workflow for the
// table of what a failed dependency does). EnqueueWorkflow stores
// every task or none; Chain, OnSuccess and OnComplete cover the common
// shapes; TaskResult reads a dependency's result, TaskResults the results
// of many (all its dependencies, by default) in one store call, and
// TaskDeps lists a task's dependencies; MoreTasks and EnqueueTasks add
// tasks at run time:
//
//	wf := hopper.NewWorkflow("thumbnails", nil)
//	publish := hopper.AddTask(wf, "publish", Publish{}, nil)
//	for _, w := range []int{160, 320} {
//		publish.After(hopper.AddTask(wf, fmt.Sprint("thumb-", w), Thumb{Width: w}, nil))
//	}
//	info, err := hopper.EnqueueWorkflow(ctx, client, wf)
//
// # Workers
//
// A Worker claims jobs from its queues and runs each on a bounded pool,
// through the middleware, to the handler registered for its kind:
//
//	w := hopper.NewWorker(store, &hopper.WorkerConfig{Queues: map[string]int{"default": 1}, Concurrency: 64})
//	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
//		return send(ctx, job.Args.To, job.Args.Subject)
//	})
//	err := w.Run(ctx) // until ctx is done, then a graceful shutdown
//
// A claimed job is leased to its worker, which renews the lease while the
// handler runs; if the worker dies, the lease expires and the job runs
// again. Weights or StrictPriority order the queues; QueueConcurrency caps
// a queue inside one worker.
//
// # Flow control
//
// A queue's settings (QueueConfig, shared by every process through the
// store) cap its running jobs across all workers (MaxRunning, and per
// group GroupMaxRunning) and limit its handler starts: RateLimit starts in
// any window of RatePeriod, wherever it starts, counted where the handler
// runs (the lag between a claim and the start included), or paced evenly
// with RateSmooth, one start every RatePeriod/RateLimit with an optional
// RateBurst; GroupRateLimit does the same for each group. A worker claims
// a rate-limited queue's jobs only for idle slots and starts each within a
// small guard of its claim, or hands it back at no cost to its attempts
// (store.RateTerms has the argument).
//
// # Outcomes
//
// What the handler returns decides what happens to the job (the table on
// Outcome has every case): nil acks it; an error retries it after a
// backoff (WorkerConfig.Backoff) until its retries are used up, then moves
// it to garbage; Permanent moves it to garbage at once; Snooze puts it
// back for a while without counting the attempt. A panic is recovered and
// counts as an error. RecordResult keeps a small result with a job kept
// for its retention.
//
// # Order
//
// What order jobs run in, said once for the whole package:
//
//   - Claims. Within one queue, claims take the ready jobs highest
//     Priority first and, within a priority, first in first out (in the
//     order they became ready; due jobs become ready oldest due first). In
//     a queue with groups, claims take turns over the groups and take each
//     group's jobs first in first out. Across queues, weights (or
//     StrictPriority) decide, not age.
//   - Starts. A worker hands the jobs of each claim to its slots in the
//     order the store took them. With two claims in flight on a backlog
//     (at the default Prefetch) the claims themselves may come back in
//     either order, so a later claim's jobs may start first; with
//     WorkerConfig.OrderedStarts (off by default: it costs a backlog's
//     drain 10–20 % of its throughput) the worker holds a claim that came
//     back early until the other is back, and then, within a priority and
//     within a group, no job is handed to a slot while one claimed before
//     it waits. With
//     Concurrency 1, handlers start in that order. With more slots, each
//     slot that frees takes the next job in that order, but jobs taken at
//     the same moment run on different goroutines, whose handlers are
//     entered in whatever order the Go scheduler runs them, and jobs that
//     run side by side finish in any order. A worker runs the jobs it
//     already holds (Prefetch) before a higher priority that came since:
//     one slot and Prefetch -1 run strictly by priority. Several workers
//     start jobs side by side, each in its own claims' order.
//   - A group capped at 1 (QueueConfig.GroupMaxRunning or
//     Groups.SetGroupLimit) runs its jobs one at a time across all
//     workers, in enqueue order, and keeps that order across a crash.
//   - After a lost lease (a worker died, froze or lost the store): once
//     its lease has expired, the Scheduler puts the job back at the head of
//     its group, or of its priority level when it has no group, before the
//     jobs that were ready; jobs whose leases expire together keep their
//     claim order. The attempt counts: with none left, the job goes to
//     garbage.
//   - After a shutdown hand-back (jobs held in Prefetch, or running jobs
//     that did not stop within ShutdownTimeout): back to the head of its
//     group or priority level at once, the attempt not counted.
//   - After a retry or a snooze the handler asked for (an error, Snooze):
//     the job waits in retry or pending for its delay, then goes to the
//     back of its group or priority level, behind the jobs already ready,
//     which may run meanwhile (also in a group capped at 1). A handler
//     that needs strict order across failures retries inside itself.
//
// # The lifecycle
//
// A job is always in one state. hopper keeps the names of the classic Redis
// delay-queue design it is built on; other systems call them differently:
//
//	pending  waiting for its run time (delayed, snoozed)     elsewhere: scheduled
//	ready    due, waiting for a worker, first in first out    elsewhere: available, waiting
//	unack    claimed by a worker under a lease                elsewhere: running, active
//	retry    failed, waiting for its backoff                  elsewhere: retryable
//	garbage  dead: retries used up, permanent, cancelled      elsewhere: dead, archived, discarded
//	done     succeeded, kept for its retention                elsewhere: completed
//
// A Scheduler moves jobs by time: it promotes due pending and retry jobs to
// ready, reclaims jobs whose lease expired, and collects done and garbage
// jobs past their retention. Every Worker runs one for its queues; the
// ticks of schedules (periodic jobs: SchedulerConfig.Schedules, and those
// kept in the store with Inspector.SetSchedule) are enqueued by it too,
// each tick once across any number of processes.
//
// # Stores
//
// A Store holds the jobs: memstore for tests, demos and single-process
// programs, redisstore for Redis (a single server, Sentinel or a Cluster).
// Both pass the same conformance suite (storetest). Package store describes
// the seam for writing another store.
//
// # Middleware
//
// Middleware wraps handlers net/http style (Worker.Use) and the enqueue
// path (Client.Use). Package middleware has panic recovery with a hook,
// OpenTelemetry tracing from Enqueue to the handler, metrics, and slog
// logging; AttemptOutcome tells a middleware how the attempt ends.
//
// # Events, progress and results
//
// Every transition of a job is an event in its queue's stream (enqueued,
// started, progress, retried, succeeded, dead, cancelled, snoozed, ...);
// Client.Subscribe reads it from a position and resumes after a restart.
// Client.WaitJob, and EnqueueAndWait for request/response use, return when a
// job ends, with its result (WaitResult and DecodeResult decode it into a
// type), and Client.WaitWorkflow when a workflow ends, without polling. A handler reports
// Progress and Log lines, carried on its lease renewals; WorkerConfig.Hooks
// run code in the worker when a job succeeds, is retried or dies.
//
// # Operating
//
// An Inspector is the operator's view of a store: counts, throughput,
// one job or a page of them with search, requeue, delete, cancel, pause
// and resume, the live workers and the periodic schedules. The dashboard
// (package dashboard, an http.Handler) and the hopper command line are
// built on it.
//
// # Configuration
//
// Every constructor takes a pointer to a config struct; nil, and every zero
// field, means the documented default. Each config type has a Validate
// method; a constructor given an invalid config panics with Validate's
// error (it wraps ErrInvalidConfig and names the field), since a config is
// usually a literal in the program. Validate first when the values come
// from flags, the environment or a file.
//
// # Testing
//
// Package hoppertest runs one job through a handler as a worker would,
// drains a memstore synchronously on a clock the test moves, and asserts
// that code under test enqueued a job.
//
// # Guarantees
//
// A job whose Enqueue returned without error is handled until a handler
// acks it or it reaches garbage (at-least-once: a job can run more than
// once when a worker dies or stalls past its lease, never zero times); a
// worker whose lease was lost cannot ack, nack or extend the job; a job
// never runs before it is due by the store's clock. The README says what
// each store needs from its server to keep them.
package hopper
