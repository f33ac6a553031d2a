// Package memstore is a store.Store that keeps everything in the memory of
// one process: for tests, demos, examples and single-process programs that
// want background jobs without running Redis.
//
// It implements the whole Store contract (fencing tokens, attempts counted at
// claim, one clock, unique keys, periodic tick guards, pause, global
// concurrency and rate limits, retention in done, throughput, cancellation,
// the worker registry and schedules) and passes the storetest conformance
// suite that redisstore passes too. Nothing survives the
// process: when it exits, every job, queue setting and record is gone, so a
// crash loses the queue. Use redisstore when jobs must outlive the process or
// be shared between processes.
//
// # Clock
//
// Every time the store records or compares (enqueue and finish times, due
// times, lease deadlines, throughput minutes, worker expiry) comes from one
// clock, time.Now unless Config.Clock gives another, truncated to the
// millisecond as Redis would. Durations in requests are rounded up to the
// next millisecond, so a job never falls due and a lease never expires before
// the time asked for.
//
// # Concurrency and cost
//
// A Store is safe for concurrent use by any number of goroutines. Each queue
// has its own mutex, so work on different queues never contends; the map of
// queues is copy-on-write and read without locking. Enqueue, Claim, Finish
// and Extend cost O(log n) per job in the size of the affected state (ready is
// an intrusive FIFO list, the timed states are indexed min-heaps) and
// allocate only what they return. Listing and counting are admin paths that
// may copy and sort. Every record a method returns is a deep copy, and every
// slice or map a method is given is copied before it is kept, so callers can
// never change the store's state through them.
//
// Like a network store, every method but WaitReady and WaitSchedule does
// nothing and returns ctx.Err() when ctx is already done.
//
// # Workflows
//
// A Store implements store.Workflows. Workflows live in one record per
// workflow under one lock of the store's, taken before any queue's; a task
// released is enqueued into its queue as Enqueue would. Where a task's job
// ends (Finish, Maintain, Cancel, Delete, Requeue), its queue notes the end
// and the call applies it to the workflow, releasing the dependents it
// frees, before it returns; nothing is ever left half done, so
// MaintainWorkflows only removes workflows past their retention (reads
// treat those as gone already).
//
// As in the Store contract, only Maintain (the scheduler's duty) promotes due
// pending and retry jobs to ready, reclaims expired leases and collects old
// jobs: a program that enqueues delayed jobs must run a hopper scheduler (or
// call Maintain) for them to become claimable.
package memstore
