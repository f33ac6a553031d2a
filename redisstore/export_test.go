package redisstore

import (
	"context"
	"strconv"
	"time"

	"github.com/hopperq/hopper/store"
)

// LeanUntilMs is when a queue's lean mark expires, in Unix ms.
const LeanUntilMs = leanUntilMs

// LeanAsked reports whether s asks queue q's claims for the lean way and
// sends its plain acks as pairs: whether the last call of q that could
// tell took a lean way, or said one would serve.
func LeanAsked(s *Store, q string) bool { return s.queueKeys(q).lean.Load() }

// CheckKeys makes every script built from now on fail a command on a key
// that is not in its KEYS (keycheck.go). TestMain calls it before any
// test, so that the whole package's tests, the conformance suite among
// them, check every script call.
func CheckKeys() { keyCheck = true }

// CrashWorkflowsAt makes s stop its workflow deliveries at step ("apply",
// "release", "confirm", "done"; "" for never) as if its process died
// there, leaving the rest to a sweeper.
func CrashWorkflowsAt(s *Store, step string) {
	if step == "" {
		s.wfCrash.Store(nil)
		return
	}
	s.wfCrash.Store(&step)
}

// DropLocalReleases makes s stop, after a finish on one server applied a
// task's end or EnqueueWorkflow stored a workflow, before it enqueues the
// tasks that step released into other queues, as if its process died
// there.
func DropLocalReleases(s *Store, drop bool) { s.wfDropRels.Store(drop) }

// ApplyTaskEnd applies a record of the end of task job id of queue (seq,
// outcome s, f, c, d or r) to its workflow, as a delivery does.
func ApplyTaskEnd(ctx context.Context, s *Store, queue, id string, seq int, outcome string) error {
	wf, task, _ := store.ParseTaskJobID(id)
	return s.applyEnds(ctx, []endRecord{{queue: queue, id: id, wf: wf, task: task, seq: strconv.Itoa(seq), outcome: outcome}})
}

// DeliverTaskEnds delivers the records of the ends of task jobs ids of
// queue that are still waiting in the queue, as RequeueJobs does after its
// step.
func DeliverTaskEnds(ctx context.Context, s *Store, queue string, ids []string) error {
	return s.deliverEnds(ctx, endsOf(queue, ids))
}

// ThroughputKey returns the key of queue's throughput counters.
func ThroughputKey(s *Store, queue string) string { return s.queueKeys(queue).tput }

// AttKey returns the key of queue's attempt info (att).
func AttKey(s *Store, queue string) string { return s.queueKeys(queue).att }

// BeforeWorkflowIndex makes s call f once, the next time it is about to
// write workflow states to the index after a workflow step (EnqueueWorkflow,
// a delivery): what another process may do in that moment.
func BeforeWorkflowIndex(s *Store, f func()) { s.wfBeforeIndex.Store(&f) }

// StageWorkflowTasks makes s stage a workflow's tasks n a call, and create
// one of more than n in steps (workflow_stage.go). Call it before s's
// first call.
func StageWorkflowTasks(s *Store, n int) { s.wfStageTasks = n }

// AfterWorkflowStage makes s run f once, after it staged a workflow's
// tasks and before the workflow's last step.
func AfterWorkflowStage(s *Store, f func()) { s.wfAfterStage.Store(&f) }

// BeforeWorkflowRelease makes s run f once, after a workflow's last step
// and before it enqueues the workflow's first tasks.
func BeforeWorkflowRelease(s *Store, f func()) { s.wfBeforeRelease.Store(&f) }

// CancelWorkflowStep runs the first step of s.CancelWorkflow(id) alone:
// the workflow's waiting tasks and those being released are cancelled,
// and nothing else is done yet (the jobs of its enqueued tasks, the
// index): what another process's CancelWorkflow leaves between its steps.
func CancelWorkflowStep(ctx context.Context, s *Store, id string) error {
	return s.runWf(ctx, fullScript("wf_cancel"), id).Err()
}

// WorkflowsExpiring returns how many workflows the index holds for the
// sweeper to delete when their retention ends.
func WorkflowsExpiring(ctx context.Context, s *Store) int64 {
	return s.rdb.ZCard(ctx, s.wfi.exp).Val()
}

// IndexWorkflowAs writes workflow id into the index under state (running,
// succeeded, failed, cancelled), with no expiry: what a late index write
// left in v0.1.0 (TestWorkflowIndexRepair).
func IndexWorkflowAs(ctx context.Context, s *Store, id, state string) error {
	return s.run(ctx, fullScript("wfi_set"), s.wfi.setKeys, id, state, 1, 0).Err()
}

// OnLeaseGiveBack makes s's enqueue batchers call f with the release of
// a lease's connection whenever they give one back (a round trip's lease
// that finds another parked), instead of releasing it.
func OnLeaseGiveBack(s *Store, f func(release func())) { s.leaseGiveBack.Store(&f) }

// SetSpareIdle sets how long a parked lease may wait and still carry a
// leading call's round trip (spareIdle), before s's first call.
func SetSpareIdle(s *Store, d time.Duration) { s.spareIdle = d }

// OnSpareGivenBack makes the timer of s's client's parked lease call f
// each time it has given the lease back to the pool.
func OnSpareGivenBack(s *Store, f func()) { s.spare.swept.Store(&f) }

// DropSpareLeases gives back the connection of the lease parked on s's
// client for the next leading call, so that the next calls take their
// connections from the pool (and with them the client's hooks added
// since).
func DropSpareLeases(s *Store) { s.spare.take().release() }

// FixFlights keeps s's enqueue batchers at one round trip in flight, the
// limit they start at, so that a test can count the calls that lead. Call
// it before s's first call.
func FixFlights(s *Store) { s.flightPeriod = 0 }

// SetFlightPeriod sets the least length of the periods over which s's
// enqueue batchers compare their limits of round trips in flight. Call it
// before s's first call.
func SetFlightPeriod(s *Store, d time.Duration) { s.flightPeriod = d }

// FlightSwitches returns how many times s's enqueue batchers changed
// their limit of round trips in flight.
func FlightSwitches(s *Store) int {
	n := 0
	s.batchers.Range(func(_, v any) bool {
		b := v.(*batcher)
		b.mu.Lock()
		n += b.flights.switches
		b.mu.Unlock()
		return true
	})
	return n
}

// QueuedEnqueues returns how many Enqueue calls wait in s's batchers for
// a round trip.
func QueuedEnqueues(s *Store) int {
	n := 0
	s.batchers.Range(func(_, v any) bool {
		b := v.(*batcher)
		b.mu.Lock()
		n += len(b.queue)
		b.mu.Unlock()
		return true
	})
	return n
}

// BuiltScripts returns how many scripts (variants) this process has built.
func BuiltScripts() int { return len(allScripts()) }

// ParsedLuaFiles returns how many files of lua/ this process has parsed.
func ParsedLuaFiles() int {
	n := 0
	parsedLua.Range(func(any, any) bool { n++; return true })
	return n
}

// LuaFiles returns how many files lua/ holds.
func LuaFiles() int { return len(luaNames()) }

// SetFullPause sets how long s sends no FUNCTION LOAD after a server
// refused one at maxmemory (a second by default). Call it before s is
// used.
func SetFullPause(s *Store, d time.Duration) { s.fmode.fullPause = d }

// SetGroupsMoveBatch sets how many jobs one call of the migration to
// per-group lists moves, and returns a function that restores it.
func SetGroupsMoveBatch(n int) func() {
	old := groupsMoveBatch
	groupsMoveBatch = n
	return func() { groupsMoveBatch = old }
}

// ExpirePartsRead makes s's partition counts old: its next claim reads
// them again, as it does every partsRefresh, and its first enqueue to a
// queue asks, as after partsFresh.
func ExpirePartsRead(s *Store) { s.partsRead.Store(0) }

// ForgetRegistrations makes s register each queue again at its next
// enqueue, as it does every registerEvery.
func ForgetRegistrations(s *Store) { s.registered.Clear() }

// SetPartitionSweep sets how often s marks every partition of a queue
// again (partSweepEvery).
func SetPartitionSweep(s *Store, d time.Duration) { s.partSweep = d }

// LoseSignals makes s's claims of partitioned queue forget the signals
// they had not acted on, as if lost to a fault: no partition stays marked.
func LoseSignals(s *Store, queue string) {
	v, ok := s.rot.Load(queue)
	if !ok {
		return
	}
	r := v.(*rotation)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = s.notify.seqs(kindReady, r.names)
	clear(r.mark)
}

// PartitionIndex is the partition of n that a job of routing key key
// (its group, unique key, schedule or ID) goes to.
func PartitionIndex(key string, n int) int { return partIndex(key, n) }

// SetWatchPoll sets how long the watches of Stores made from now on wait
// for an end message before they look, until the returned func restores
// it.
func SetWatchPoll(d time.Duration) (restore func()) {
	old := watchPoll
	watchPoll = d
	return func() { watchPoll = old }
}

// PlainScriptOf returns the name of the plain script (lua.go: @eval)
// built so far whose digest is sha ("enqueue_lean"), or "".
func PlainScriptOf(sha string) string {
	for _, sc := range allScripts() {
		if sc.plain && (sc.eval.Hash() == sha || sc.shardForm().eval.Hash() == sha) {
			return sc.name
		}
	}
	return ""
}
