package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"

	"github.com/redis/go-redis/v9"
)

// Bounds of one enqueue script call; larger batches are split (each job is
// still one atomic step).
const (
	maxScriptJobs = 1000
	// soloBatch is the size from which an Enqueue call is not merged with
	// others (see Enqueue).
	soloBatch      = 64
	maxScriptBytes = 8 << 20
)

// encJob is one job encoded for the enqueue script, and what became of it.
type encJob struct {
	queue string
	id    string
	kind  string
	value []byte
	due   string
	// shape is what the job needs of its queue's scripts: a priority
	// level (P) or a group (G).
	shape shape
	// Unique key and periodic tick; extra is false when neither is set
	// (nor an explicit RunAt or a Replace).
	extra     bool
	replace   store.Replace
	lockField string
	uniqueFor int64
	schedule  string
	tick      int64

	res store.EnqueueResult
	err error
	// written is set (to 1, atomically) when go-redis writes the job's
	// value to a connection (valueArg): from then on the job may be
	// stored, whatever its call's error (lostItems).
	written uint32
}

// jobShape returns the letters of the shape a script's variant needs to
// store job j: P for a priority, G for a group.
func jobShape(j *store.NewJob) shape {
	var sh shape
	if j.Priority != 0 {
		sh |= shapePrio
	}
	if j.Group != "" {
		sh |= shapeGroups
	}
	return sh
}

func newEncJob(j *store.NewJob, buf []byte) encJob {
	e := encJob{queue: j.Queue, id: j.ID, kind: j.Kind, value: encodeValueIn(j, buf), due: dueArg(j)}
	e.shape = jobShape(j)
	// An explicit RunAt takes the adds/extras.lua path too, so a job that
	// is already due when it arrives keeps RunAt as the time it fell due.
	// A job's own retention is in its envelope: the worker sends it back
	// with the ack, so it needs no extra step here.
	if j.UniqueKey != "" || j.Schedule != "" || !j.RunAt.IsZero() || j.Replace != 0 {
		e.extra = true
		e.replace = j.Replace
		if j.UniqueKey != "" {
			e.lockField = lockField(j.UniqueKey)
			e.uniqueFor = mstime.Ceil(j.UniqueFor)
		}
		if j.Schedule != "" {
			e.schedule = j.Schedule
			e.tick = j.Tick.UnixMilli()
		}
	}
	return e
}

// lockField is the field a unique key takes in the lock hash: the key
// itself when short, else a fixed-length hash of it, so a 1 KiB key costs
// no more than a 44-byte one. The first byte keeps the two kinds apart.
func lockField(key string) string {
	if len(key) <= 43 {
		return "=" + key
	}
	sum := sha256.Sum256([]byte(key))
	return "#" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// Enqueue adds jobs (see store.Store). Every job is first checked with
// store.ValidateJobs; one invalid job fails the whole call and nothing is
// written. Jobs go to their queue's script in order, one script call per
// queue (batches over 1000 jobs are split), all pipelined in one round
// trip; with coalescing (the default, see Config.NoCoalescing) concurrent
// calls share round trips. The due time is RunAt, or the server's now
// plus Delay, both to the microsecond (rounded up). When ctx ends before
// the reply, the error wraps ctx's and says whether the jobs were sent:
// "not stored" ("none is stored" for several jobs) when they never left
// the process (ctx had ended when the call began, or while it waited for
// a merged round trip), "may be stored" when they did; it names the
// queue when the jobs share one. A call that fails without Redis's reply
// once its jobs were written to a connection (a read timeout, the
// connection reset or closed) says "may be stored" too, and keeps its
// class (ErrUnavailable); one that fails before they were written (no
// connection, the pool's timeout) or that Redis answered with an error
// does not (lostItems).
func (s *Store) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	if err := store.ValidateJobs(jobs); err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	s.refreshShared(ctx)
	s.learnQueues(ctx, jobs)
	items, ptrs, res, buf := enqueueSlices(len(jobs))
	for i, j := range jobs {
		if err := s.validPartition(j.Queue); err != nil { // ValidateJobs checked the rest
			return nil, err
		}
		items[i] = newEncJob(j, buf)
		items[i].queue = s.route(j)
		ptrs[i] = &items[i]
	}
	// Merging pays for small calls; a call of many jobs already amortizes
	// its round trip, and sending it at once, concurrently with others,
	// keeps Redis busy while other producers prepare theirs. Calls are
	// merged per hash slot, so that a failing shard holds up no caller of
	// another.
	if ctx.Err() != nil {
		// Not sent: a call made with an ended context may or may not
		// reach Redis (go-redis checks the context at some steps only).
		return nil, notSent(ctx, ptrs)
	}
	if b := s.batcherFor(ptrs); b != nil && len(jobs) < soloBatch {
		if err := b.do(ctx, ptrs); err != nil {
			return nil, err
		}
	} else {
		s.enqueueNow(ctx, ptrs, nil)
		cutItems(ctx, ptrs)
	}
	// Per job: stored, a duplicate, or an error of its queue's script.
	// When no job was stored the call fails; otherwise the failed ones
	// carry their error (store.EnqueueResult.Err).
	var firstErr error
	failed := 0
	for i := range items {
		if err := items[i].err; err != nil {
			res[i] = store.EnqueueResult{ID: items[i].id, Err: err}
			if firstErr == nil {
				firstErr = err
			}
			failed++
			continue
		}
		res[i] = items[i].res
	}
	if failed == len(items) {
		return nil, callErr(firstErr, ptrs)
	}
	return res, nil
}

// batcherFor returns the batcher that merges calls enqueueing jobs: the one
// of their hash slot (the only one on a plain client), or nil when
// coalescing is off or the jobs span several slots.
func (s *Store) batcherFor(jobs []*encJob) *batcher {
	if s.opts.NoCoalescing {
		return nil
	}
	slot := 0
	if s.sharded {
		slot = keySlot(s.queueKeys(jobs[0].queue).tag)
		for _, j := range jobs[1:] {
			if j.queue != jobs[0].queue && keySlot(s.queueKeys(j.queue).tag) != slot {
				return nil
			}
		}
	}
	if b, ok := s.batchers.Load(slot); ok {
		return b.(*batcher)
	}
	b, _ := s.batchers.LoadOrStore(slot, &batcher{s: s, flights: newFlightControl(s.flightPeriod, s.flightMost)})
	return b.(*batcher)
}

// enqueueNow sends items in one round trip and records each one's result
// or error. via, when not nil, is the batcher's lease the round trip goes
// on (runAll); the durable path (Config.Replicas) does not use it, since
// its WAIT must follow the calls on a connection of their own.
func (s *Store) enqueueNow(ctx context.Context, items []*encJob, via *lease) {
	if len(items) == 0 {
		return
	}
	// Most calls carry one queue's jobs, and most one script call's worth:
	// those make no map and no lists beyond these.
	var oneQueue [1][]*encJob
	var oneItems [1][]*encJob
	byQueue := oneQueue[:0]
	if sameQueue(items) {
		byQueue = append(byQueue, items)
	} else {
		byQueue = groupItems(items)
	}
	var calls []*evalCall
	callItems := oneItems[:0]
	for _, g := range byQueue {
		q := g[0].queue
		for len(g) > 0 {
			n, size := 0, 0
			for n < len(g) && n < maxScriptJobs && (n == 0 || size+len(g[n].value) <= maxScriptBytes) {
				size += len(g[n].value)
				n++
			}
			c := enqueueCall(q, g[:n], !s.leanDenied.Load(), s.shapes.get(q))
			c.via = via
			c.noResend = true
			calls = append(calls, c)
			callItems = append(callItems, g[:n])
			g = g[n:]
		}
	}
	now := time.Now()
	var toRegister []string
	for _, g := range byQueue {
		if q := g[0].queue; s.needsRegister(q, now) {
			toRegister = append(toRegister, q)
		}
	}
	// The registration's command, made by pre in the pipeline: only a call
	// that registers a queue pays for the closure and its result.
	var reg **redis.IntCmd
	var pre func(redis.Pipeliner)
	if len(toRegister) > 0 {
		reg = new(*redis.IntCmd)
		pre = func(p redis.Pipeliner) { *reg = s.registerCmds(ctx, p, toRegister, true) }
	}
	s.sendShaped(ctx, calls, pre, true)
	s.leanRefused(ctx, calls, callItems)
	for i, c := range calls {
		setEnqueueResults(callItems[i], c.cmd)
		lostItems(callItems[i], c.cmd.Err())
	}
	if reg != nil && *reg != nil && (*reg).Err() == nil {
		for _, q := range toRegister {
			s.markRegistered(q, now)
		}
	}
}

// sameQueue reports whether items are all of one queue.
func sameQueue(items []*encJob) bool {
	for _, it := range items[1:] {
		if it.queue != items[0].queue {
			return false
		}
	}
	return true
}

// groupItems groups items by queue, the queues in order of first
// appearance (finish.go's groupByQueue).
func groupItems(items []*encJob) [][]*encJob {
	order, at := groupByQueue(len(items), func(i int) string { return items[i].queue })
	out := make([][]*encJob, len(order))
	for k, q := range order {
		for _, i := range at[q] {
			out[k] = append(out[k], items[i])
		}
	}
	return out
}

// leanRefused sends again, the longer way, the calls of calls that could
// take the lean way (lua/lean.lua) and that the server refused because the
// ACL user may not run PTTL, which the lean way runs before it writes
// anything: a call that failed with ErrNoPerm and none of whose jobs is
// stored. (A refusal after the script's writes, of a right the ACL user
// lacks too, is left as it is: it went again, and its job was reported a
// duplicate of itself.) When a call sent again is answered, PTTL was the
// right missing: from then on the store sends no call that could take the
// lean way (leanDenied), and it says so once. A call of
// lua/enqueue_lean.lua whose EVALSHA or EVAL the server refused (the
// ACL, or a server without the commands) ran nothing: it goes again the
// longer way whatever its jobs' state, and the store says so once and
// sends such calls to the enqueue function from then on, the lean way
// still (plainDenied). The look at the jobs costs a round trip on this
// error's path only, none on the lean way.
func (s *Store) leanRefused(ctx context.Context, calls []*evalCall, callItems [][]*encJob) {
	if s.leanDenied.Load() {
		return
	}
	var again []*evalCall
	var at []int
	var plain []bool
	for i, c := range calls {
		err := c.cmd.Err()
		if !c.leanWay || err == nil {
			continue
		}
		// The plain script's own command refused: nothing ran, whether
		// the job is stored (a duplicate) or not.
		evalRefused := c.script != nil && c.script.plain && refusesEval(err)
		if !evalRefused && (classify(err) != ErrNoPerm || s.anyStored(ctx, callItems[i])) {
			continue
		}
		if evalRefused && s.plainDenied.CompareAndSwap(false, true) {
			s.opts.Logger.Warn("redisstore: the server refused EVALSHA or EVAL (grant +evalsha +eval, or keep the commands): lone enqueues run as functions, which costs Redis more",
				"error", err)
		}
		again = append(again, enqueueCall(c.queue, callItems[i], false, s.shapes.get(c.queue)))
		at = append(at, i)
		plain = append(plain, evalRefused)
	}
	if len(again) == 0 {
		return
	}
	s.sendShaped(ctx, again, nil, true)
	for k, i := range at {
		calls[i] = again[k]
		if again[k].cmd.Err() == nil && !plain[k] && s.leanDenied.CompareAndSwap(false, true) {
			s.opts.Logger.Warn("redisstore: the ACL user may not run PTTL (grant +pttl): enqueues read the queue's marks and TIME, which costs Redis more")
		}
	}
}

// refusesEval reports whether err is the server's refusal of EVALSHA or
// EVAL itself (the ACL's, or a server whose commands were renamed away),
// not of a command a script ran.
func refusesEval(err error) bool {
	msg := err.Error()
	for _, cmd := range [...]string{"'evalsha'", "'eval'"} {
		if strings.Contains(msg, cmd+" command") || strings.Contains(msg, "unknown command "+cmd) {
			return true
		}
	}
	return false
}

// anyStored reports whether one of items (of one queue) is in its queue's
// jobs hash; true when it cannot tell.
func (s *Store) anyStored(ctx context.Context, items []*encJob) bool {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	got, err := s.rdb.HMGet(ctx, s.queueKeys(items[0].queue).jobs, ids...).Result()
	if err != nil {
		return true
	}
	for _, v := range got {
		if v != nil {
			return true
		}
	}
	return false
}

// dueNow reports whether a call of items with plain adds goes to the
// plain variant's path for jobs due now: neither the jobs (sh) nor the
// queue, as far as the store knows (known), has a shape, the jobs share
// kind (not ""), each is due now and no two share an ID.
func dueNow(kind string, sh, known shape, items []*encJob) bool {
	if kind == "" || sh|known != 0 {
		return false
	}
	for _, it := range items {
		if it.due != "" {
			return false
		}
	}
	return distinctIDs(items)
}

// enqueueCall returns the call of enqueue.lua that enqueues items into
// queue: in the variant of the queue's shape and the jobs' (a priority, a
// group), with the adds slot of plain jobs (three arguments a job, two
// on the path of jobs due now: dueNow) unless one has a unique key, tick,
// Replace or explicit RunAt (adds/extras.lua).
// With lean, jobs all due now may take the lean way (lua/lean.lua), with
// the lead keys alone (evalCall.short): the store sends lean false once
// the server refused it PTTL. known is the queue's shape as the store
// knows it (shapeCache).
func enqueueCall(queue string, items []*encJob, lean bool, known shape) *evalCall {
	var v variant
	n := 2
	for _, it := range items {
		v.shape |= it.shape
		n += 3
		if it.extra {
			n += 5
			v.adds = "extras"
		}
	}
	// The kind all the jobs share, for their events (the script reads
	// each job's otherwise).
	kind := items[0].kind
	for _, it := range items[1:] {
		if it.kind != kind {
			kind = ""
			break
		}
	}
	if lean && v.adds == "" && len(items) == 1 && items[0].due == "" {
		// One job due now: its ID and value, the fewest arguments, and
		// no pending key (Redis builds a table of the KEYS and one of the
		// arguments for every call; adds/plain.lua).
		// While the queue's lean mark is set, the call goes to
		// enqueue_lean.lua, a plain script (it costs Redis less there).
		c := shapedCall("enqueue", queue, v, nil, (*strArg)(&items[0].id), (*valueArg)(items[0]))
		c.tailless, c.leanWay, c.short, c.leanFile = true, true, true, "enqueue_lean"
		return c
	}
	args := make([]any, 0, n)
	if v.adds == "" {
		if dueNow(kind, v.shape, known, items) {
			// The plain variant's path for jobs due now (adds/plain.lua's
			// first_adds): pairs, ID and value, without the due time
			// every job would send empty. "n" may take the lean way, "N"
			// may not.
			flag := "N"
			if lean {
				flag = "n"
			}
			args = append(args, kind, flag)
			for _, it := range items {
				args = append(args, (*strArg)(&it.id), (*valueArg)(it))
			}
			c := shapedCall("enqueue", queue, v, nil, args...)
			c.leanWay, c.short = lean, lean
			return c
		}
		args = append(args, kind, "")
		for _, it := range items {
			args = append(args, (*strArg)(&it.id), (*valueArg)(it), (*strArg)(&it.due))
		}
		return shapedCall("enqueue", queue, v, nil, args...)
	}
	args = append(args, kind, "")
	for _, it := range items {
		if it.extra {
			flag := "1"
			if it.replace != 0 {
				flag = "r" + strconv.Itoa(int(it.replace))
			}
			args = append(args, it.id, (*valueArg)(it), it.due, flag, it.lockField, it.uniqueFor, it.schedule, it.tick)
		} else {
			args = append(args, it.id, (*valueArg)(it), it.due, "")
		}
	}
	return shapedCall("enqueue", queue, v, nil, args...)
}

// valueArg is a job given to go-redis as its value argument, without the
// allocation a []byte takes to go into an interface (args.go). go-redis
// asks for the value only as it writes the command to a connection (a
// hook or a log that prints the command calls String): that is how the
// store knows the job was written (encJob.written).
type valueArg encJob

// MarshalBinary returns the job's stored value, as the client writes it,
// and marks the job written.
func (v *valueArg) MarshalBinary() ([]byte, error) {
	atomic.StoreUint32(&v.written, 1)
	return v.value, nil
}

// String returns the value as text, as go-redis prints a []byte argument
// (Cmd.String, the statements of tracing hooks).
func (v *valueArg) String() string { return string(v.value) }

// distinctIDs reports whether no two items have the same ID.
func distinctIDs(items []*encJob) bool {
	if len(items) == 1 {
		return true
	}
	seen := make(map[string]struct{}, len(items))
	for _, it := range items {
		if _, dup := seen[it.id]; dup {
			return false
		}
		seen[it.id] = struct{}{}
	}
	return true
}

// replacedState is the state a replaced job is in, by the letter the
// enqueue script returns.
var replacedState = [256]store.JobState{'p': store.StatePending, 'r': store.StateReady, 'y': store.StateRetry}

// setEnqueueResults reads the enqueue script's reply into items: a table
// of one result per job, or one string, the result of a call of one job
// due now or, "r", of every job of a call of jobs due now that stored
// them all (lua/adds/plain.lua: store_many).
func setEnqueueResults(items []*encJob, cmd *redis.Cmd) {
	var vals []any
	var err error
	if one, ok := replyOf(cmd).(string); ok {
		switch {
		case len(items) == 1:
			vals = []any{one}
		case one == "r":
			for _, it := range items {
				it.res = store.EnqueueResult{ID: it.id, State: store.StateReady}
			}
			return
		default:
			err = fmt.Errorf("enqueue script returned %q for %d jobs", one, len(items))
		}
	} else {
		vals, err = cmd.Slice()
	}
	if err == nil && len(vals) != len(items) {
		err = fmt.Errorf("enqueue script returned %d results for %d jobs", len(vals), len(items))
	}
	if err != nil {
		err = wrap("enqueue into "+strconv.Quote(items[0].queue), err)
		for _, it := range items {
			it.err = err
		}
		return
	}
	for i, it := range items {
		v, _ := vals[i].(string)
		switch {
		case v == "r":
			it.res = store.EnqueueResult{ID: it.id, State: store.StateReady}
		case v == "p":
			it.res = store.EnqueueResult{ID: it.id, State: store.StatePending}
		case len(v) > 0 && v[0] == 'd':
			it.res = store.EnqueueResult{ID: v[1:], Duplicate: true}
		case len(v) > 2 && v[0] == 'u' && replacedState[v[1]] != "":
			it.res = store.EnqueueResult{ID: v[2:], Duplicate: true, Replaced: true, State: replacedState[v[1]]}
		default:
			it.err = wrap("enqueue", fmt.Errorf("unexpected script result %q", v))
		}
	}
}

// oneJob is what Enqueue needs for a call of one job, the common call, in
// one allocation instead of four: value holds the job's stored value when
// it is short enough, as most are.
type oneJob struct {
	items [1]encJob
	ptrs  [1]*encJob
	res   [1]store.EnqueueResult
	value [oneValue]byte
}

// oneValue is the room oneJob has for a value (encodeValueIn's estimate
// of its size): args of up to some 130 bytes with a short kind.
const oneValue = 192

// enqueueSlices returns Enqueue's slices for n jobs: the encoded jobs,
// pointers to them, the results, and for one job room for its value (nil
// otherwise).
func enqueueSlices(n int) ([]encJob, []*encJob, []store.EnqueueResult, []byte) {
	if n == 1 {
		o := new(oneJob)
		return o.items[:], o.ptrs[:], o.res[:], o.value[:0]
	}
	return make([]encJob, n), make([]*encJob, n), make([]store.EnqueueResult, n), nil
}
