package redisstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// Partitioned queues (Config.Partitions). Partition i of queue q is the
// queue "q~i" to every method, but its keys carry the hash tag
// {<prefix>:q~i~<salt>}, the salt being the smallest number that puts the
// tag's slot in the middle half of the i-th of n equal ranges of the slot
// space: on a Cluster whose masters hold equal ranges, n a multiple of the
// masters spreads the partitions evenly. Scripts take the queue name from
// the tag, so what they publish names "q~i~<salt>"; unsalt maps it back.

// partitions holds the partition count of every partitioned queue, as the
// start-up check found it in Redis; nil before the check.
type partitions = map[string]int

// partCount returns the partitions of queue (0 when it is not
// partitioned). Safe before the check (0).
func (s *Store) partCount(queue string) int {
	if m := s.parts.Load(); m != nil {
		return (*m)[queue]
	}
	return 0
}

// partNames returns the partitions of queue, or nil when it is not
// partitioned.
func (s *Store) partNames(queue string) []string {
	n := s.partCount(queue)
	if n == 0 {
		return nil
	}
	names := make([]string, n)
	for i := range names {
		names[i] = store.PartitionName(queue, i)
	}
	return names
}

// Partitions returns the partitions of queue, or nil when it is not
// partitioned (see store.Partitioner). It runs the start-up check first.
func (s *Store) Partitions(ctx context.Context, queue string) ([]string, error) {
	if err := s.begin(ctx, queue); err != nil {
		return nil, err
	}
	return s.partNames(queue), nil
}

var _ store.Partitioner = (*Store)(nil)

// validPartition checks a queue name that passed store.ValidateQueue: a
// partition name must name a partition that exists.
func (s *Store) validPartition(name string) error {
	q, i, ok := store.SplitPartition(name)
	if !ok {
		return nil
	}
	switch n := s.partCount(q); {
	case n == 0:
		return fmt.Errorf("%w: %q names a partition of %q, which is not partitioned (redisstore Config.Partitions)", store.ErrInvalidQueue, name, q)
	case i >= n:
		return fmt.Errorf("%w: %q: queue %q has %d partitions, %s~0 to %s~%d", store.ErrInvalidQueue, name, q, n, q, q, n-1)
	}
	return nil
}

// refuseWhole fails an operation that needs one slot when queue is
// partitioned.
func (s *Store) refuseWhole(queue, what string) error {
	if n := s.partCount(queue); n > 0 {
		return fmt.Errorf("%w: %q has %d partitions; %s (%s~0 to %s~%d)", store.ErrInvalidQueue, queue, n, what, queue, queue, n-1)
	}
	return nil
}

// route returns the queue that job j goes to: its own, or for a
// partitioned queue the partition of its group, unique key, schedule or
// ID, in that order.
func (s *Store) route(j *store.NewJob) string {
	n := s.partCount(j.Queue)
	if n == 0 {
		return j.Queue
	}
	key := j.Group
	switch {
	case key != "":
	case j.UniqueKey != "":
		key = j.UniqueKey
	case j.Schedule != "":
		key = j.Schedule
	default:
		key = j.ID
	}
	return store.PartitionName(j.Queue, partIndex(key, n))
}

// partIndex is the partition of routing key key among n.
func partIndex(key string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// partTag returns the hash tag content ("<prefix>:q~i~<salt>") of
// partition i of n of queue q.
func partTag(prefix, q string, i, n int) string {
	lo, hi := i*clusterSlots/n, (i+1)*clusterSlots/n
	a, b := lo+(hi-lo)/4, hi-(hi-lo)/4
	if b <= a {
		b = a + 1
	}
	base := prefix + ":" + q + "~" + strconv.Itoa(i) + "~"
	for salt := 0; salt < 1<<20; salt++ {
		t := base + strconv.Itoa(salt)
		if sl := int(crc16(t) % clusterSlots); sl >= a && sl < b {
			return t
		}
	}
	return base + "0"
}

// unsalt maps a queue name as scripts see it ("q~i~<salt>") to the
// partition's name and its queue's; ok is false for any other name.
func unsalt(name string) (part, queue string, ok bool) {
	j := strings.LastIndexByte(name, '~')
	if j <= 0 {
		return "", "", false
	}
	part = name[:j]
	q, _, ok := store.SplitPartition(part)
	if !ok || store.ValidateQueue(q) != nil {
		return "", "", false
	}
	return part, q, true
}

// partsKey is the hash of partition counts: queue -> n.
func (g globalKeys) partsKey() string { return g.tag + "parts" }

// errPartitions marks a partition setting that conflicts with Redis: the
// check fails for good.
var errPartitions error = &finalError{"redisstore: partitions"}

// syncPartitions records Config.Partitions in Redis and loads every
// queue's recorded count. It fails, wrapping store.ErrInvalidConfig, when
// a count differs from the recorded one or the queue was used
// unpartitioned.
//
// read, when not nil, is the reply of the partition counts' HGETALL that
// the check sent with its other reads (readNode): then Config.Partitions
// declares no queue of more than one partition (it would write its count
// first). A reply that holds an error is read again.
func (s *Store) syncPartitions(ctx context.Context, read *redis.MapStringStringCmd) error {
	key := s.g.partsKey()
	var declared []string
	for q, n := range s.opts.Partitions {
		if n <= 1 {
			continue
		}
		r, err := s.run(ctx, fullScript("parts_declare"), []string{s.g.queues, key}, q, n).Int64Slice()
		if err != nil {
			return err
		}
		if r[0] < 0 {
			return fmt.Errorf("%w: %w: queue %q was used unpartitioned (it is in the queue registry, %s, drained or not); Config.Partitions applies to a queue no process has used: partition a queue of another name", store.ErrInvalidConfig, errPartitions, q, s.g.queues)
		}
		if r[1] == 1 {
			declared = append(declared, q)
		}
	}
	if read == nil || read.Err() != nil {
		read = s.rdb.HGetAll(ctx, key)
	}
	all, err := read.Result()
	if redis.IsPermissionError(err) && len(declared) == 0 && len(s.opts.Partitions) == 0 {
		// An ACL user without the store-wide keys can use every queue
		// but a partitioned one.
		s.opts.Logger.Warn("redisstore: cannot read the partitioned queues (ACL); every queue is taken as unpartitioned",
			"key", key, "error", err)
		all, err = nil, nil
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	m := make(partitions, len(all))
	for q, v := range all {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxPartitions || store.ValidateQueue(q) != nil {
			continue
		}
		if n > 1 {
			m[q] = n
		}
	}
	for q, n := range s.opts.Partitions {
		// 1 is as leaving the queue out: it takes the recorded count.
		if got := max(m[q], 1); n > 1 && got != n {
			return fmt.Errorf("%w: %w: queue %q has %d partitions in Redis (%s), Config.Partitions says %d; a queue keeps the count it was created with", store.ErrInvalidConfig, errPartitions, q, got, key, n)
		}
	}
	if len(declared) > 0 {
		s.opts.Logger.Info("redisstore: partitioned queues declared", "queues", declared)
	}
	s.parts.Store(&m)
	s.partsRead.Store(time.Now().UnixNano())
	return nil
}

// declaresPartitions reports whether Config.Partitions declares a queue
// of more than one partition.
func (s *Store) declaresPartitions() bool {
	for _, n := range s.opts.Partitions {
		if n > 1 {
			return true
		}
	}
	return false
}

// claimsPerPartition is how many claims of a partitioned queue in a row
// start at the same partition. Acks are sent per partition, one script
// call each, so a worker that took its jobs from every partition at once
// would send each call a third of the acks (with three partitions) and pay
// the call's fixed cost three times: 16 claims in a row keep the batches
// whole while every partition is visited every few milliseconds under
// load.
const claimsPerPartition = 16

// rotation is where a Store's claims of one partitioned queue start, and
// which partitions they ask.
//
// A partition is asked when it may hold claimable jobs as far as the
// Store knows: it was signalled (the wake-ups name the partition, and the
// notifier counts the signals of each: seqs) since a claim last found it
// empty, or its last claim came back full, held back by a limit, or
// failed; and every partition is marked again every partSweepEvery. A
// Store's first claim asks every partition (jobs may have been waiting
// before it listened), and so does a claim when no partition is marked:
// the fallback against a signal lost to a fault, as a worker's sweep of
// its queues without a signal, one call per partition.
// So an idle worker woken for one job asks the partition that was
// signalled, one call, whatever the partition count.
type rotation struct {
	mu    sync.Mutex
	names []string  // the partitions' names
	cur   int       // the partition claims start at
	left  int       // claims left before moving on
	seen  []uint64  // each partition's count of signals at the last claim; nil before the first
	mark  []uint64  // per partition: 0, or the generation it was marked in
	gen   uint64    // the last generation given
	swept time.Time // when every partition was last marked
}

// partSweepEvery is how often a Store marks every partition of a queue
// again, the fallback against a signal lost to a fault while others come:
// a partition whose wake-up was lost (its master frozen while its replica
// took over) was asked only when no partition was marked, so a queue whose
// other partitions stayed busy never looked at it. It costs a claim call
// per empty partition once a period, per Store and queue.
const partSweepEvery = 5 * time.Second

// partPlan is the partitions one claim of a partitioned queue asks, in
// order, and the marks they had (for partClaimed).
type partPlan struct {
	start int      // the rotation's partition
	order []int    // the partitions to ask, from start round the ring
	marks []uint64 // mark of each in order when planned
	all   bool     // no partition was marked: every one is asked
}

// claimPlan returns the partitions the next claim of queue (n partitions)
// asks: those marked, from where the rotation stands (a run of
// claimsPerPartition claims at one partition, then the next), or every
// partition when none is. Each Store starts at a random partition, so
// that processes spread over the partitions from the first claim.
func (s *Store) claimPlan(queue string, n int) partPlan {
	v, ok := s.rot.Load(queue)
	if !ok {
		v, _ = s.rot.LoadOrStore(queue, &rotation{cur: rand.IntN(n), left: claimsPerPartition})
	}
	r := v.(*rotation)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.names) != n {
		r.names, r.mark = s.partNames(queue), make([]uint64, n)
	}
	seqs := s.notify.seqs(kindReady, r.names)
	for i, q := range seqs {
		if r.seen == nil || len(r.seen) != n || r.seen[i] != q {
			r.markLocked(i)
		}
	}
	r.seen = seqs
	if now := time.Now(); now.Sub(r.swept) >= s.partSweep {
		for p := range r.mark {
			if r.mark[p] == 0 {
				r.markLocked(p)
			}
		}
		r.swept = now
	}
	if r.left <= 0 {
		r.cur, r.left = (r.cur+1)%n, claimsPerPartition
	}
	r.left--
	pl := partPlan{start: r.cur, order: make([]int, 0, n), marks: make([]uint64, 0, n)}
	for t := range n {
		if p := (r.cur + t) % n; r.mark[p] != 0 {
			pl.order = append(pl.order, p)
			pl.marks = append(pl.marks, r.mark[p])
		}
	}
	if len(pl.order) == 0 {
		pl.all = true
		for t := range n {
			pl.order = append(pl.order, (r.cur+t)%n)
			pl.marks = append(pl.marks, 0)
		}
	}
	return pl
}

// markLocked marks partition p as worth a claim. r.mu must be held.
func (r *rotation) markLocked(p int) {
	r.gen++
	r.mark[p] = r.gen
}

// partClaimed records what a claim planned with mark m found in partition p of
// queue: when it found the partition empty (drained), the mark is
// dropped, unless a signal marked it again since the plan; otherwise (a
// full batch, a limit, an error) the partition stays marked. A claim that
// found its jobs at another partition than the rotation's sends the
// rotation there (moved).
func (s *Store) partClaimed(queue string, p int, m uint64, drained, moved bool) {
	v, ok := s.rot.Load(queue)
	if !ok {
		return
	}
	r := v.(*rotation)
	r.mu.Lock()
	defer r.mu.Unlock()
	if p >= len(r.mark) {
		return
	}
	switch {
	case drained && r.mark[p] == m:
		r.mark[p] = 0
	case !drained && r.mark[p] == 0:
		r.markLocked(p)
	}
	if moved {
		r.cur, r.left = p, claimsPerPartition-1
	}
}
