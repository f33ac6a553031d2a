// Package storetest is the conformance suite for store implementations, in
// the spirit of testing/slogtest: one call runs every behaviour the store
// package's contract promises (the rules in the doc comments of
// store.Store, store.Admin and the request types) as its own subtest.
//
// A store author calls Run from a test in the store's package, with a
// function that returns a fresh, empty store for each subtest:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			return mystore.New(connect(t))
//		})
//	}
//
// # Two groups
//
// The subtests come in two groups, named by group, area and behaviour, so
// that one of them can be run alone with, for instance,
// go test -run 'Conformance/Engine/Finish/AckDeletes'.
//
// "Engine" runs for every store. It checks what hopper's Client, Worker and
// Scheduler rely on, and it looks at the store only through store.Store:
// Claim returns a job's full record; a ready job is peeked at by claiming
// and releasing it; an Enqueue of a job's ID reports a duplicate while the
// job is held in any state and adds the job once it was deleted; Maintain
// says what it promoted, reclaimed and collected and when the queue's next
// job falls due; Finish and Extend report per request. A store that passes
// it runs jobs correctly: enqueue, unique keys and periodic ticks, FIFO
// claims under leases and fencing tokens, every outcome of Finish, Extend,
// the scheduler's duties, the waits, the worker and schedule registries,
// request validation (an invalid request fails alone, or fails the call,
// with the sentinel error the store package names), and a mixed load of
// concurrent producers, consumers and a scheduler.
//
// "Admin" runs when the store also implements store.Admin, and is reported
// as skipped otherwise (a store without Admin still runs jobs; the
// Inspector, the dashboard and the command line say what they cannot show).
// It checks inspection and the operator's actions (QueueStats, Throughput,
// GetJob, ListJobs, Requeue, Delete, Cancel, Workers, SetQueueConfig, and
// CompareAndSwapQueueConfig when the store implements store.ConfigSwapper:
// two operators changing different settings at once both win), and
// the parts of the lifecycle only Admin can show or set: the records GetJob
// returns (due times, error history, results, finish times), which
// retention an ack applies, pausing a queue, MaxRunning, RateLimit (in
// every sliding window) and a handler's hold, what an enqueue with
// Replace changes of a waiting job, and cancellation of waiting and
// running jobs. Like hopper.Inspector, the only
// production caller of Admin, the suite sends Admin only valid requests,
// but for the cases that check that ListJobs and SearchJobs refuse what
// store.ListJobsOpts.Validate and store.SearchJobsOpts.Validate refuse.
//
// Optional groups run when the store implements their interface, and are
// reported as skipped otherwise: "Events" (store.EventReader), "WatchJob"
// (store.JobWaiter) and "Workflows" (store.Workflows). The Workflows group
// builds workflows whose tasks are spread over several queues, plays the
// worker through Claim and Finish and the operator through store.Admin
// (the cases that need Admin skip without it), and checks what a user
// sees: when each task becomes claimable, which tasks are skipped, the
// workflow's state, AddTasks, TaskResults, TaskDeps, ListWorkflows and retention.
//
// # What Run needs from a store
//
// Run calls newStore once first, to learn whether the store implements
// store.Admin and the optional interfaces; then once per subtest. Every subtest calls t.Parallel, so
// newStore must be safe to call from several goroutines and each store must
// be safe to use next to the others. Stores may share one server: the suite
// uses a fresh random queue name in every subtest. The few store-wide
// listings (Queues, Workers, Schedules) are checked only for the names the
// subtest created, so other data on the server does no harm. Release
// per-store resources with t.Cleanup; Run returns only after every subtest
// has finished.
//
// The stores run on real time: the suite uses short real durations (tens to
// a few hundred milliseconds) and waits for conditions by polling with a
// generous deadline (10s), never by sleeping. It never asserts that
// something was fast: a deadline only tells a wait woken by an event from
// one that ran into its own, much longer timeout. Times the store reports
// are compared with the test's clock only loosely (within two seconds), so
// a store whose clock is a server's clock on the same network passes; times
// are compared with each other to the millisecond.
package storetest
