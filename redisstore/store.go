package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// Store is a store.Store on Redis 7 or newer: a single server, a Sentinel
// failover client or a Redis Cluster. Create one with New; the zero value is
// not usable. All methods are safe for concurrent use by any number of
// goroutines, and any number of processes may share the same Redis and
// Prefix. A Store holds no resources of its own: closing the client is
// enough.
type Store struct {
	rdb     redis.UniversalClient
	opts    Config
	g       globalKeys
	wfi     wfIndex
	wfSwept atomic.Int64 // unix ns of MaintainWorkflows' last look at queues' task ends
	// wfSweepAfter is the last queue that look reached: the next goes on
	// after it (sweepEnds).
	wfSweepAfter struct {
		sync.Mutex
		queue string
	}
	// wfChecked is the unix ns of MaintainWorkflows' last check of the
	// running list (repairIndex), wfCheckFrom the created ms it goes on
	// from.
	wfChecked, wfCheckFrom atomic.Int64
	// wfCrash, set by tests only, names the workflow delivery step at
	// which this Store stops as if its process died (crashAt).
	wfCrash atomic.Pointer[string]
	// wfDropRels, set by tests only, makes Finish and EnqueueWorkflow stop
	// before they enqueue the tasks their script left being released, as
	// if the process died.
	wfDropRels atomic.Bool
	// leanDenied: the server refused PTTL to the ACL user; enqueues take
	// the longer way (enqueue.go: leanRefused).
	leanDenied atomic.Bool
	// plainDenied: the server refused EVALSHA or EVAL (the ACL, or the
	// commands renamed away); the enqueue of one job due now into a lean
	// queue goes to the enqueue function, not to lua/enqueue_lean.lua
	// (set by leanRefused, read by shaped).
	plainDenied atomic.Bool
	// wfBeforeIndex, set by tests only, runs once before settleAll's
	// next index write.
	wfBeforeIndex atomic.Pointer[func()]
	// wfAfterStage, set by tests only, runs once after a workflow's
	// tasks were staged, before its last step.
	wfAfterStage atomic.Pointer[func()]
	// wfBeforeRelease, set by tests only, runs once after a workflow's
	// last step, before its first tasks are enqueued.
	wfBeforeRelease atomic.Pointer[func()]
	// wfStageTasks, set by tests only (before the store's first call),
	// replaces maxScriptJobs as the tasks of a staging call
	// (workflow_stage.go).
	wfStageTasks int
	// leaseGiveBack, set by tests only, runs instead of a batcher's
	// giving back of a lease's connection (batcher.done), with that
	// release.
	leaseGiveBack atomic.Pointer[func(release func())]
	// spare is the client's slot for a lease parked between enqueue
	// round trips (nil on a Cluster or a Ring, and with Replicas), and
	// spareIdle how long a parked lease may wait and still be taken: the
	// constant spareIdle, which tests may shorten before the store's
	// first call.
	spare     *spareSlot
	spareIdle time.Duration
	// partSweep is how often a partitioned queue's claims ask every
	// partition again (partSweepEvery; tests shorten it).
	partSweep time.Duration
	// flightPeriod is the least length of the periods over which an
	// enqueue batcher compares its limits of round trips in flight: the
	// constant flightPeriod, or 0 (a limit of one, never changed), which
	// tests may set before the store's first call.
	flightPeriod time.Duration
	// watchPoll is the package's watchPoll when the Store was made: how
	// long a job's or workflow's watch waits for its end message before it
	// looks (wait_job.go).
	watchPoll time.Duration
	// flightMost is the most round trips in flight an enqueue batcher
	// may choose (flightMost, from the client's pool).
	flightMost int
	sharded    bool // keys of different hash tags may live on different nodes
	shardPub   bool // a Redis Cluster: wake-ups go on shard channels (notify_sharded.go)

	keys       sync.Map                   // queue name -> *queueKeys
	parts      atomic.Pointer[partitions] // partitioned queues, set by the check (partition.go)
	rot        sync.Map                   // partitioned queue -> *atomic.Uint64, Claim's rotation
	registered sync.Map                   // queue name -> time.Time of its last SADD to the registry
	learned    sync.Map                   // queue name -> true: asked before its first enqueue (partition_learn.go)
	partsRead  atomic.Int64               // unix ns of the last read of the partition counts (refreshShared)
	wanted     sync.Map                   // queue name -> time.Time of its last events_arm (events_interest.go)

	fmode    funcMode    // scripts called as functions (functions.go)
	shapes   shapeCache  // what the Store knows of its queues' shapes (shape.go)
	checked  atomic.Bool // the start-up check passed
	nodesOK  atomic.Bool // the check but the layout passed (check.go)
	checkMu  checkLock
	checkErr error // a permanent check failure (ErrUnsupportedServer)
	// layoutAt is the stored layout the check found, or that Migrate
	// stored or refreshShared read since (0 before the check, and when
	// the ACL denied it): from layout 2 on, registering a queue marks it
	// to keep its groups' ready jobs in lists (registerCmds).
	layoutAt atomic.Int32
	// loss is the data's mark the store last saw (layout_restore.go).
	loss lossWatch

	// claimer names the Store's notes of its claims, claimSeq counts its
	// claims, and lost holds those whose reply it never read
	// (takeback.go).
	claimer  string
	claimSeq atomic.Uint64
	lost     lostClaims

	batchers sync.Map  // hash slot (0 on a plain client) -> *batcher
	notify   *notifier // wake-ups: ready, sched
	watch    *notifier // events and job ends (events.go, wait_job.go)
}

var _ store.Store = (*Store)(nil)

// New returns a Store on client, which may be a *redis.Client, a Sentinel
// failover client or a *redis.ClusterClient (any redis.UniversalClient).
// nil cfg means defaults. New does no I/O: the server is checked before
// the first operation (see Check). It panics if client is nil or opts is
// invalid, with the error of Config.Validate.
func New(client redis.UniversalClient, cfg *Config) *Store {
	if client == nil {
		panic("redisstore: New with a nil client")
	}
	o := cfg.withDefaults()
	if err := o.Validate(); err != nil {
		panic(err)
	}
	s := &Store{
		rdb:  client,
		opts: o,
		g:    newGlobalKeys(o.Prefix),
		wfi:  newWfIndex(o.Prefix),

		checkMu:      make(checkLock, 1),
		spareIdle:    spareIdle,
		flightPeriod: flightPeriod,
		watchPoll:    watchPoll,
		flightMost:   flightMost(poolSize(client)),
		partSweep:    partSweepEvery,
		claimer:      newClaimer(),
	}
	s.fmode.fullPause = defaultFullPause
	c, plain := client.(*redis.Client)
	s.sharded = !plain
	if plain && o.Replicas == 0 {
		s.spare = sparesOf(c)
	}
	s.notify = newNotifier(s, o.Prefix+":ready", o.Prefix+":sched")
	s.watch = newNotifier(s, o.Prefix+":ev", o.Prefix+":done")
	s.watch.keyOf = doneKey
	_, s.shardPub = client.(*redis.ClusterClient)
	s.notify.shardSuffix = []string{"ready", "sched"}
	s.watch.shardSuffix = []string{"ev", ""} // job ends stay on "<prefix>:done"
	return s
}

// queueKeys returns the keys of queue, which must be valid.
func (s *Store) queueKeys(queue string) *queueKeys {
	if k, ok := s.keys.Load(queue); ok {
		return k.(*queueKeys)
	}
	tag := s.opts.Prefix + ":" + queue
	if q, i, ok := store.SplitPartition(queue); ok {
		n := s.partCount(q)
		if s.parts.Load() == nil || i >= n {
			// The partitions unknown (before the check, or a queue not
			// known partitioned, which another process may have declared
			// since: partition_learn.go): nothing to cache.
			return newQueueKeysTag(queue, tag)
		}
		tag = partTag(s.opts.Prefix, q, i, n)
	}
	k, _ := s.keys.LoadOrStore(queue, newQueueKeysTag(queue, tag))
	return k.(*queueKeys)
}

// begin is called first by every method: it fails on invalid options, runs
// the start-up check once and validates the queue names given (after the
// check, which loads the partitioned queues).
func (s *Store) begin(ctx context.Context, queues ...string) error {
	for _, q := range queues {
		if err := store.ValidateQueue(q); err != nil {
			return err
		}
	}
	if !s.checked.Load() {
		if err := s.ensureChecked(ctx); err != nil {
			return err
		}
	}
	for _, q := range queues {
		if err := s.validPartition(q); err != nil {
			return err
		}
	}
	return nil
}

// registerEvery is how often a queue is added to the registry again, in
// case the registry was lost (a flushed server) while the process ran.
const registerEvery = time.Minute

// needsRegister reports whether queue should be added to the registry by
// this call.
func (s *Store) needsRegister(queue string, now time.Time) bool {
	t, ok := s.registered.Load(queue)
	return !ok || now.Sub(t.(time.Time)) > registerEvery
}

// markRegistered records that queue was added to the registry.
func (s *Store) markRegistered(queue string, now time.Time) {
	s.registered.Store(queue, now)
}

// register adds queue to the registry unless that was done recently.
func (s *Store) register(ctx context.Context, queue string) error {
	now := time.Now()
	if !s.needsRegister(queue, now) {
		return nil
	}
	cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		s.registerCmds(ctx, p, []string{queue}, false)
		return nil
	})
	if err == nil {
		for _, c := range cmds {
			if err = c.Err(); err != nil {
				break
			}
		}
	}
	if err != nil && classify(err) == ErrOOM {
		// At maxmemory the registry refuses writes; a queue registered
		// before needs none (with its sentinels), and the operator's
		// pause, delete or settings change that called this goes on.
		if ok, rerr := s.rdb.SIsMember(ctx, s.g.queues, queue).Result(); rerr == nil && ok {
			err = nil
		}
	}
	if err != nil {
		return err
	}
	s.markRegistered(queue, now)
	return nil
}

// registerCmds queues the commands that register queues: the registry's
// SADD (first: its reply tells whether registration worked), each
// queue's sentinels (in unack, att and marks; see keys.go) and, from
// layout 2 on, its mark gv. With once, go-redis sends them once (see
// onceAny): an enqueue's round trip carries them, and go-redis's retries
// of a node that does not answer (the registry's or a queue's) would hold
// the enqueue for each one's read timeout; the next enqueue registers
// again.
func (s *Store) registerCmds(ctx context.Context, p redis.Pipeliner, queues []string, once bool) *redis.IntCmd {
	add := func(c redis.Cmder) {
		if once {
			c = onceAny{c}
		}
		_ = p.Process(ctx, c)
	}
	args := make([]any, 0, 2+len(queues))
	args = append(args, "sadd", s.g.queues)
	for _, q := range queues {
		args = append(args, q)
	}
	reg := redis.NewIntCmd(ctx, args...)
	add(reg)
	// From layout 2 on, no release that reads only layout 1's sorted set
	// of grouped jobs runs on this Redis (Migrate or a fresh Redis saw
	// to that): the queue may push them to lists (lua/groups/store.lua).
	lists := s.layoutAt.Load() >= 2
	for _, q := range queues {
		k := s.queueKeys(q)
		add(redis.NewIntCmd(ctx, "zadd", k.unack, "nx", "+inf", sentinelMember))
		add(redis.NewBoolCmd(ctx, "hsetnx", k.att, sentinelField, sentinelValue))
		add(redis.NewBoolCmd(ctx, "hsetnx", k.marks, sentinelField, sentinelValue))
		if lists {
			add(redis.NewBoolCmd(ctx, "hsetnx", k.marks, "gv", "l"))
		}
	}
	return reg
}
