// Package store is the seam between hopper's engine and a storage backend.
// Job authors and operators never need it: they use package hopper (Client,
// Worker, Inspector). Read on if you write a store, or want to know exactly
// what a store promises.
//
// A store implements Store, the engine's interface: the job lifecycle as
// atomic transitions (Enqueue, Claim, Finish, Extend, Maintain), the two
// waits that let idle workers and schedulers sleep instead of polling, and
// the registries a running worker writes (Heartbeat, RegisterSchedules). A
// store may also implement Admin, the operator's interface behind
// hopper.Inspector (listing, counting, requeue, delete, cancel, queue
// settings). A store without Admin still runs jobs; the Inspector, the
// dashboard and the command line then say what they cannot show.
//
// hopper ships two stores, memstore (in memory) and redisstore (Redis, one
// Lua script per transition). storetest.Run checks any store against the
// rules below: the engine group always, the admin group when the store
// implements Admin.
//
// # The lifecycle
//
// A job is in exactly one state at a time (see JobState): pending (waiting
// for its due time), ready (due; claimed highest priority first, first in
// first out within one), unack (claimed under a lease), retry (failed,
// waiting for its backoff), garbage (dead, kept for inspection) or done
// (succeeded, kept for a retention). Other systems call
// unack running or active, garbage dead, archived or discarded, and pending
// scheduled.
//
// # Rules every Store keeps
//
//   - Each method is one atomic transition per job: a job is in exactly one
//     state at any time, and a crash between two calls loses nothing.
//   - All times (due times, lease deadlines, enqueue and finish times) come
//     from the store's own clock, never the caller's, with millisecond
//     resolution. Durations in requests (Delay, Lease) are measured on that
//     clock and rounded up, so nothing falls due or expires early.
//   - A job is never returned by Claim before it is due.
//   - Claim counts the attempt (Attempt+1) and issues a fresh fencing Token
//     (see Tokens below). Finish and Extend succeed only with the token of
//     the job's current claim; a stale token changes nothing and reports
//     ErrLeaseLost. The one exception: an end sent again after it applied
//     reports nil and changes nothing while the job is where that end put
//     it, under that claim: an ack's job kept in done, a death's or a
//     cancel's in garbage, a retry's in retry (or in garbage cancelled:
//     by the cancel flag, or by Cancel since); a retry after a lost reply
//     learns the end held. A snooze or a release sent again, an end of a
//     job promoted, requeued, replaced into ready or claimed again since,
//     and a second end of one claim in the same call report ErrLeaseLost.
//   - Enqueue with an ID that already exists in the queue creates nothing
//     and reports the existing job as a duplicate, so a retried write never
//     makes two jobs.
//   - Batch methods take requests for several queues at once; results are
//     in request order, one per request, and a request that fails changes
//     nothing and does not fail the others.
//   - All methods are safe for concurrent use by any number of goroutines
//     and processes.
//
// # Tokens
//
// A token fences one claim of one job: Finish and Extend name a job by
// queue, ID and token (AttemptEnd, LeaseRef), and succeed only while that
// job is in unack under the claim that issued the token. It proves that
// the caller holds the job's current claim: not that it is the only
// process that ever ran the attempt (a worker whose lease expired may
// still be running the handler when another one claims the job), only
// that a stale worker can no longer end or extend the job.
//
// One call to Claim issues one token, shared by every job it returns;
// each call issues a new one, never issued before by the store (both
// stores take it from one counter for the whole store, so tokens
// increase). A token alone therefore does not name a claimed job: the
// pair (ID, token) does, because a job is claimed at most once per call.
// So Finish and Extend of one job of a claim never touch the others: acking
// one job leaves the rest of its claim in unack under their leases, a nack
// or a release of one gives up that job alone, and Extend renews each
// listed job's lease on its own. Once a job is claimed again its old
// (ID, token) is stale even though the other jobs of the old claim still
// hold that token.
//
// # Wrapping a store
//
// A store wrapped for tracing, metrics or a test double keeps what the
// store it wraps can do when the wrapper has an Unwrap method returning it
// (Wrapper), as error and slog.Handler wrappers do: the wrapper embeds
// Store, overrides the methods it wants to see, and adds
//
//	func (w *tracing) Unwrap() store.Store { return w.Store }
//
// Every optional capability (Admin, Workflows, JobWaiter, WorkflowWaiter,
// EventReader, ScheduleStore, Groups, Durations, Searcher, Partitioner,
// WorkerControl, ScheduleRuns, ServerInformer) is found with As, which
// returns the outermost store of the chain that implements it. So a
// capability's calls go straight to the innermost store
// that has it, past a wrapper that does not implement it: a wrapper that
// wants to see them (say, to trace Workflows.TaskResult) implements that
// interface itself and delegates. A wrapper without Unwrap has only the
// methods it declares: its workflows, Wait, events and Inspector fail
// with hopper.ErrNotSupported.
//
// # Who checks what
//
// The engine (hopper's Client, Worker and Scheduler) only sends requests
// that pass their Validate methods, and hopper.Inspector checks and
// defaults every operator request before it reaches Admin. A store calls
// the Validate functions and methods of this package first, on engine and
// Admin requests alike, so that a program calling a store directly gets
// the same errors from every store and a request that names no valid
// queue, state or workflow changes nothing: each method's doc says what
// it refuses (Admin's preamble the queue names of all its methods).
package store
