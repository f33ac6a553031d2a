package redisstore

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/store"
)

// Config configures a Store. The zero value and nil mean defaults
// everywhere.
type Config struct {
	// Prefix starts every key the store writes, so that several
	// applications (or test runs) can share one Redis. Queue keys look like
	// "{<prefix>:<queue>}:r"; store-wide keys like "{<prefix>}:queues".
	// It must be 1 to 64 bytes without '{', '}', ':' or white space (see
	// Validate).
	// Defaults to "hopper".
	Prefix string

	// Logger receives the warnings of the start-up check (a maxmemory-policy
	// that may evict jobs, a server check refused by ACL). Defaults to
	// slog.Default().
	Logger *slog.Logger

	// PausedRetry is the ClaimResult.RetryIn reported for a paused queue,
	// and the most reported for a queue held back by its MaxRunning cap.
	// Resuming a queue or finishing one of its jobs wakes WaitReady sooner.
	// Defaults to 1s.
	PausedRetry time.Duration

	// NoCoalescing turns off the merging of concurrent Enqueue calls. By
	// default, while two Enqueue round trips are in flight (per hash slot
	// on a Cluster), the calls that arrive meanwhile wait and then go
	// together in one pipelined round trip (one script call per queue),
	// each still getting its own results and error. A lone call is never
	// delayed. Calls of 64 jobs or more always go on their own.
	//
	// With a plain *redis.Client whose PoolSize, and MaxActiveConns when
	// set, are 4 or more and whose retries are on (not with Replicas),
	// the merged calls' round trips hold a connection of the client's
	// pool from one to the next instead of taking one a round trip (each
	// take costs a health-check system call): while calls keep queuing
	// up, the goroutine that sends them keeps the connection of the call
	// it follows, and when none is queued the connection is parked for
	// the next call, one parked a client whatever the number of stores
	// on it. A parked connection goes back to the pool after a second
	// unused; any connection goes back after a failed call, and another
	// is taken every 256 round trips, so the pool's checks
	// (ConnMaxLifetime among them) still run. Up to two connections a
	// Store are held while round trips are in flight (one each), and one
	// a client is parked between them. NoCoalescing turns this off too.
	NoCoalescing bool

	// CoalesceMaxJobs bounds the jobs merged into one round trip. Defaults
	// to 1000.
	CoalesceMaxJobs int

	// Replicas, when positive, makes Enqueue, EnqueueWorkflow, AddTasks
	// and Finish wait until that many replicas of each master they wrote to
	// have their writes (Redis WAIT, on the connection that wrote), so that
	// an acknowledged enqueue or ack survives a failover to one of those
	// replicas. A call whose writes reach fewer replicas within
	// ReplicaTimeout fails (Enqueue, EnqueueWorkflow, AddTasks) or fails
	// those requests (Finish) with an error wrapping ErrNotReplicated
	// (temporary): the writes are on the master and may be lost with it.
	// Sending them again is safe while they are still there (enqueue by
	// job or workflow ID, tasks by name, finish by token; the worker
	// does), but such a job is live: it may run and end before the next
	// try, which then finds its ID free and enqueues it again (give it a
	// Retention, which holds the ID past its end, or a unique key with
	// For, when a retry loop must not run it twice). Defaults to 0: no
	// wait. Redis replicates
	// asynchronously, so without it a failover loses the writes its
	// replica had not received yet: enqueues vanish, acked jobs run again.
	// It costs one WAIT per round trip, answered once the replicas have the
	// writes (about a network round trip to them).
	Replicas int

	// ReplicaTimeout bounds each WAIT of Replicas. Defaults to 1 s.
	ReplicaTimeout time.Duration

	// OneSlotPerScript keeps every script to the keys of one hash slot
	// even on one server, as on a Cluster. Set it when a proxy in front of
	// Redis routes each command by its key (twemproxy, Envoy). By default
	// (false), on a *redis.Client, the script that acks a workflow task
	// also applies the end to its workflow and enqueues the tasks it
	// releases, which takes a chain step from five round trips to none,
	// and a fan-out task's Redis CPU from about 3.5 plain jobs' to under
	// 2 (see workflow.go). On a Cluster client it changes nothing.
	OneSlotPerScript bool

	// NoFunctions calls the scripts with EVALSHA instead of loading them
	// as Redis functions (FUNCTION LOAD, FCALL). By default (false) each
	// script is a function library of its own, named after a hash of its
	// source ("hopper_<hash>_<script>"), so that processes of different
	// versions each call their own: the start-up check loads those a
	// plain queue's producers and workers call on every master, and any
	// other is loaded on its first call; a call
	// then costs Redis about 40,000 fewer instructions than the same
	// script through EVALSHA, which defines every helper function anew on
	// each call. Libraries stay in the server (they are saved and
	// replicated like data) after the process ends: FUNCTION LIST
	// LIBRARYNAME hopper_* shows them, FUNCTION DELETE removes one no
	// process runs any more. A server that refuses FUNCTION LOAD (ACL, a
	// proxy) gets plain scripts without this option, with a warning.
	NoFunctions bool

	// Partitions spreads the named queues over several hash slots: queue
	// name -> number of partitions, 2 to store.MaxPartitions (1 is the
	// same as leaving the queue out). On a Redis Cluster one queue then
	// uses every master instead of one; each partition's slot is picked so
	// that the partitions fall into equal ranges of the slot space, which
	// a Cluster with evenly split slots maps to its masters in turn.
	//
	// A partition is a queue of its own, named "<queue>~<i>"
	// (store.PartitionName), with its own keys, events, statistics and
	// dashboard row. Enqueue into the queue puts a job in the partition of
	// its Group, else of its UniqueKey, else of its periodic Schedule,
	// else of its ID (a hash of that key), so that a group's order and
	// limits and a schedule's ticks hold as in one queue. A unique key and
	// a job ID are checked within the job's partition: they hold as in one
	// queue among jobs routed alike (a unique key among the jobs of one
	// group, or among those of no group; an ID among jobs without a group
	// or unique key), while the same key or ID given to jobs of different
	// groups may be held by one job in each of their partitions. Claim from the queue
	// takes from one partition for 16 claims in a row, then the next (so
	// that acks go to one partition in whole batches), going on to the
	// next partitions when one comes up short. It asks only the
	// partitions that may hold jobs as far as the store knows (signalled
	// by the wake-ups, which name the partition, since a claim last found
	// them empty, or left with jobs): an idle worker woken for a job asks
	// its partition alone. A store's first Claim, and one when no
	// partition is marked (a worker's sweep without a signal), asks every
	// partition, a script call each. Claim from a partition takes from it
	// alone. Maintain, WaitReady and
	// QueueStats of the queue cover every partition; GetJob, Cancel,
	// WatchJob, Requeue and Delete find a job in whichever partition holds
	// it. Order (FIFO, Priority) holds within a partition, not across
	// them. A partitioned queue refuses what needs one slot:
	// QueueConfig.MaxRunning and RateLimit (use group limits, which hold
	// exactly), workflow tasks, and listing or reading the events of the
	// queue as a whole (list or read its partitions).
	//
	// The count is recorded in Redis when a store first checks the server
	// ("{<prefix>}:parts"). A store whose Partitions say otherwise, or that
	// partitions a queue already used unpartitioned, fails every call with
	// an error wrapping store.ErrInvalidConfig; a store that does not name
	// the queue takes the recorded count, so a worker process needs no
	// setting of its own when it starts after the queue was declared. A
	// process that started before the declaration learns of it too: its
	// first enqueue to the queue asks first (one round trip, once per
	// queue a process uses: a script that registers the queue unless it
	// is partitioned, which the declaration, also a script, cannot come
	// between), and its claims and enqueues read the counts again every
	// 10 seconds.
	// A store's scheduler, and an Inspector's listing of the queues, learn
	// it from the partitions' names in the queue registry. So a queue is
	// either declared before a process uses it, or used unpartitioned and
	// the declaration refused.
	// Defaults to none: every queue in one slot.
	Partitions map[string]int
}

// Defaults of Config.
const (
	DefaultPrefix          = "hopper"
	DefaultPausedRetry     = time.Second
	DefaultCoalesceMaxJobs = 1000
	DefaultReplicaTimeout  = time.Second
)

// withDefaults returns a copy of o (nil allowed) with every zero field set
// to its default.
func (o *Config) withDefaults() Config {
	var r Config
	if o != nil {
		r = *o
	}
	if r.Prefix == "" {
		r.Prefix = DefaultPrefix
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	if r.PausedRetry <= 0 {
		r.PausedRetry = DefaultPausedRetry
	}
	if r.CoalesceMaxJobs <= 0 {
		r.CoalesceMaxJobs = DefaultCoalesceMaxJobs
	}
	if r.ReplicaTimeout <= 0 {
		r.ReplicaTimeout = DefaultReplicaTimeout
	}
	return r
}

// Validate reports whether o is a valid configuration: nil, or an error
// wrapping hopper.ErrInvalidConfig that names the field. New panics with
// the same error.
func (o Config) Validate() error {
	if o.Replicas < 0 {
		return fmt.Errorf("%w: Config.Replicas %d is negative", store.ErrInvalidConfig, o.Replicas)
	}
	for q, n := range o.Partitions {
		if err := store.ValidateQueue(q); err != nil {
			return fmt.Errorf("%w: Config.Partitions: %w", store.ErrInvalidConfig, err)
		}
		if _, _, ok := store.SplitPartition(q); ok {
			return fmt.Errorf("%w: Config.Partitions names %q, a partition: name the queue", store.ErrInvalidConfig, q)
		}
		if n < 1 || n > store.MaxPartitions {
			return fmt.Errorf("%w: Config.Partitions[%q] = %d, want 1 to %d", store.ErrInvalidConfig, q, n, store.MaxPartitions)
		}
	}
	if o.Prefix == "" {
		return nil // the default
	}
	return validatePrefix(o.Prefix)
}

// validatePrefix checks Config.Prefix.
func validatePrefix(p string) error {
	if len(p) > 64 {
		return fmt.Errorf("%w: Config.Prefix is %d bytes, at most 64", store.ErrInvalidConfig, len(p))
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '{' || c == '}' || c == ':' || c <= ' ' || c == 0x7f:
			return fmt.Errorf("%w: Config.Prefix %q has %q at byte %d (no braces, colons, spaces or control characters)", store.ErrInvalidConfig, p, p[i:i+1], i)
		}
	}
	return nil
}
