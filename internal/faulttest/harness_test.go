package faulttest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// faultJob is the job the producers enqueue; the workers handle its kind
// without decoding it.
type faultJob struct{ N int }

func (faultJob) Kind() string { return faultKind }

// fault is one injected fault: at a time, hitting one worker (by id) or,
// with worker empty, every worker (Redis faults).
type fault struct {
	at     time.Time
	worker string
}

// run is one scenario's world: a Redis, a key prefix, the test's own store
// (the producer's), the worker processes with their ledger (every event
// they reported), and what the producer and the fault injector recorded.
type run struct {
	t      *testing.T
	rdb    redis.UniversalClient
	store  *redisstore.Store
	client *hopper.Client
	prefix string
	queues []string
	procs  *proctest.Group
	nodes  []string // cluster masters whose keys checkKeys scans; all when empty

	mu     sync.Mutex
	acked  map[jobKey]bool // Enqueue returned nil (and no duplicate)
	failed int             // Enqueue returned an error
	faults []fault
	// enqueued is when the call that stored each acknowledged job ran: a
	// Redis fault inside it may make go-redis send the call again, and a
	// job that finished between the two is stored anew (docs/guarantees.md).
	enqueued map[jobKey]window
}

// window is a span of time, both ends included.
type window struct{ from, to time.Time }

func (w window) holds(t time.Time) bool { return !t.Before(w.from) && !t.After(w.to) }

func newRun(t *testing.T, rdb redis.UniversalClient, queues ...string) *run {
	t.Helper()
	if len(queues) == 0 {
		queues = []string{"default"}
	}
	r := &run{t: t, rdb: rdb, prefix: redistest.Prefix(t), queues: queues, procs: proctest.NewGroup(t), acked: map[jobKey]bool{}, enqueued: map[jobKey]window{}}
	if d := os.Getenv("FAULTTEST_KEEP"); d != "" {
		// Diagnosis: each worker's ledger and log, by test.
		r.procs.Dir = filepath.Join(d, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	r.store = redisstore.New(rdb, &redisstore.Config{Prefix: r.prefix})
	r.client = hopper.NewClient(r.store, &hopper.ClientConfig{Queue: queues[0]})
	return r
}

// startWorker starts a worker process named id (its WorkerConfig.ID),
// stopped when the test ends if it still runs then.
func (r *run) startWorker(id string, o workerOpts) *proctest.Proc {
	r.t.Helper()
	if os.Getenv("FAULTTEST_CPUPROFILE") != "" {
		// Diagnosis: a CPU profile of each worker next to its ledger
		// (keep the directory with FAULTTEST_KEEP).
		dir := r.procs.Dir
		if dir == "" {
			dir = r.t.TempDir()
		}
		o.CPUProfile = filepath.Join(dir, id+".cpu.pprof")
	}
	return r.procs.Start(id, roleWorker, o)
}

// ledgers returns every event the workers reported, each worker's in
// order. The slice must not be modified.
func (r *run) ledgers() []proctest.Event { return r.procs.Events() }

// jobKey names a job.
type jobKey struct{ queue, id string }

func keyOf(e proctest.Event) jobKey { return jobKey{e.Queue, e.Job} }

// at is when a worker reported e, by its clock, in whole milliseconds (as
// the ledger has always kept it: the bounds below were set on those).
func at(e proctest.Event) time.Time { return e.At.Truncate(time.Millisecond) }

// addFault records a fault injected now.
func (r *run) addFault(worker string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, fault{at: time.Now(), worker: worker})
}

// enqueue stores n jobs in queue, batch at a time, and records those whose
// enqueue was acknowledged. It returns the first error, after trying all.
func (r *run) enqueue(ctx context.Context, queue string, n, batch int, opts *hopper.EnqueueOpts) error {
	o := hopper.EnqueueOpts{}
	if opts != nil {
		o = *opts
	}
	o.Queue = queue
	var first error
	for done := 0; done < n; done += batch {
		args := make([]faultJob, min(batch, n-done))
		for i := range args {
			args[i] = faultJob{N: done + i}
		}
		from := time.Now()
		infos, err := hopper.EnqueueMany(ctx, r.client, args, &o)
		call := window{from, time.Now()}
		r.mu.Lock()
		if err != nil {
			r.failed += len(args)
			if first == nil {
				first = err
			}
		}
		for _, in := range infos {
			// A job with Err was not stored (or may not have been) while
			// others of the call were: not acknowledged.
			if !in.Duplicate && in.Err == nil {
				r.acked[jobKey{in.Queue, in.ID}] = true
				r.enqueued[jobKey{in.Queue, in.ID}] = call
			}
		}
		r.mu.Unlock()
	}
	return first
}

// enqueuePaced enqueues like enqueue but holds each batch back until the
// queue has fewer than batch jobs ready, so that the workers are never far
// behind and a redelivered job does not queue behind a backlog. It
// enqueues n jobs, then more batches for as long as more reports true: a
// scenario whose faults need jobs running keeps the workers busy until
// they have landed. It returns how many jobs it enqueued.
func (r *run) enqueuePaced(ctx context.Context, queue string, n, batch int, more func() bool) (int, error) {
	done := 0
	for done < n || more() {
		for {
			st, err := r.store.GetQueueStats(ctx, queue)
			if err != nil {
				return done, err
			}
			if st.Counts.Ready < int64(batch) {
				break
			}
			select { // flow control, polled
			case <-ctx.Done():
				return done, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		count := batch
		if done < n {
			count = min(batch, n-done)
		}
		if err := r.enqueue(ctx, queue, count, batch, nil); err != nil {
			return done, err
		}
		done += count
	}
	return done, nil
}

func (r *run) ackedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.acked)
}

// waitQuiet waits until every acknowledged job has a successful final
// finish (ack or garbage) in the ledger and no queue holds a job in
// pending, ready, unack or retry.
//
// When they do not within timeout, the test logs the stacks of hopper's
// goroutines in each worker still running (ending it), to show where a
// worker that holds back ready jobs waits, and fails.
func (r *run) waitQuiet(timeout time.Duration) {
	r.t.Helper()
	var last error
	if testutil.Poll(timeout, func() bool { last = r.quietErr(); return last == nil }) {
		return
	}
	for _, p := range r.procs.Running() {
		r.t.Logf("goroutines of %s (hopper's):\n%s", p.Name(), p.Stacks("github.com/hopperq/hopper/"))
	}
	r.t.Fatalf("after %v: %v", timeout, last)
}

// quietErr says what waitQuiet still waits for, or nil.
func (r *run) quietErr() error {
	evs := r.ledgers()
	ends := finals(evs)
	for k := range r.unconfirmedAcks(evs) {
		ends[k]++
	}
	r.mu.Lock()
	var missing []jobKey
	for k := range r.acked {
		if ends[k] == 0 {
			missing = append(missing, k)
		}
	}
	r.mu.Unlock()
	if len(missing) > 0 {
		return r.missingErr(missing)
	}
	for _, q := range r.queues {
		st, err := r.store.GetQueueStats(context.Background(), q)
		if err != nil {
			return err
		}
		if c := st.Counts; c.Pending+c.Ready+c.Unack+c.Retry > 0 {
			return fmt.Errorf("queue %s still has jobs: %+v", q, c)
		}
	}
	return nil
}

// missingErr describes acknowledged jobs that have not ended: the first
// one's record, its queue's counts, and when its enqueue ran beside the
// faults, so that a failure says whether the job waits where workers
// claim (its queue's ready count) or sits where nothing will take it.
func (r *run) missingErr(missing []jobKey) error {
	k := missing[0]
	ctx := context.Background()
	var what string
	if rec, err := r.store.GetJob(ctx, k.queue, k.id); err == nil {
		what = fmt.Sprintf("%s, attempt %d, deadline %v, errors %v", rec.State, rec.Attempt, rec.Deadline, rec.Errors)
	} else {
		what = err.Error()
	}
	counts := "unknown"
	if st, err := r.store.GetQueueStats(ctx, k.queue); err == nil {
		counts = fmt.Sprintf("%+v", st.Counts)
	}
	r.mu.Lock()
	w := r.enqueued[k]
	var faults []string
	for _, f := range r.faults {
		faults = append(faults, f.at.Format("15:04:05.000"))
	}
	r.mu.Unlock()
	return fmt.Errorf("%d acknowledged jobs not acked nor in garbage yet; %s is %s; queue %s counts %s; enqueued %s-%s, faults at %v",
		len(missing), k.id, what, k.queue, counts, w.from.Format("15:04:05.000"), w.to.Format("15:04:05.000"), faults)
}

// finals counts per job the successful finishes that end it: ack or
// garbage.
func finals(evs []proctest.Event) map[jobKey]int {
	n := map[jobKey]int{}
	for _, e := range evs {
		if isFinal(e) {
			n[keyOf(e)]++
		}
	}
	return n
}

// isFinal reports whether e is a job's end that took it out of the queue
// for good: an ack or a move to garbage that the store confirmed.
func isFinal(e proctest.Event) bool {
	return e.Ev == "fin" && e.Err == "" && (e.Outcome == hopper.OutcomeAck.String() || e.Outcome == hopper.OutcomeGarbage.String())
}

// unconfirmedAcks returns the jobs with an ack whose success the ledger
// cannot show, for a reason the fault explains:
//
//   - the reply was lost with the connection: go-redis sent the ack again,
//     and the second try found the job gone, deleted by the first
//     (ErrJobNotFound);
//   - the worker was killed after sending the ack (its "try" line) and
//     before it logged the result.
//
// The check counts such an ack as the job's only when no other finish
// ended the job and the job is gone from Redis.
func (r *run) unconfirmedAcks(evs []proctest.Event) map[jobKey]bool {
	r.mu.Lock()
	faults := append([]fault(nil), r.faults...)
	r.mu.Unlock()
	ack := hopper.OutcomeAck.String()
	out := map[jobKey]bool{}
	answered := map[string]bool{} // worker/queue/id/token of every fin line
	for _, e := range evs {
		if e.Ev == "fin" {
			answered[fmt.Sprintf("%s/%s/%s/%d", e.Child, e.Queue, e.Job, e.Token)] = true
			if e.Outcome == ack && e.Err == hopper.ErrJobNotFound.Error() {
				out[keyOf(e)] = true
			}
		}
	}
	for _, e := range evs {
		if e.Ev != "try" || e.Outcome != ack || answered[fmt.Sprintf("%s/%s/%s/%d", e.Child, e.Queue, e.Job, e.Token)] {
			continue
		}
		for _, f := range faults {
			if f.worker == e.Child && !f.at.Before(at(e)) {
				out[keyOf(e)] = true
			}
		}
	}
	return out
}

// check asserts the invariants of issue 7 once the run is quiet. base is
// how many executions a job needs without faults (1, or 2 with
// -fail-first).
func (r *run) check(base int) {
	t := r.t
	t.Helper()
	evs := r.ledgers()
	ctx := context.Background()

	// Every acknowledged enqueue ended acked or in garbage, never both, and
	// exactly once.
	acks, garbage, lost := map[jobKey]int{}, map[jobKey]int{}, r.unconfirmedAcks(evs)
	for _, e := range evs {
		if e.Ev != "fin" || e.Err != "" {
			continue
		}
		switch e.Outcome {
		case hopper.OutcomeAck.String():
			acks[keyOf(e)]++
		case hopper.OutcomeGarbage.String():
			garbage[keyOf(e)]++
		}
	}
	r.mu.Lock()
	acked := make([]jobKey, 0, len(r.acked))
	for k := range r.acked {
		acked = append(acked, k)
	}
	faults := append([]fault(nil), r.faults...)
	enqueued := maps.Clone(r.enqueued)
	r.mu.Unlock()
	// resent counts the Redis faults inside the call that enqueued k: each
	// may have had go-redis send the call again after a lost reply, storing
	// anew a job that had finished meanwhile, which then runs once more.
	resent := func(k jobKey) int {
		n := 0
		for _, f := range faults {
			if w, ok := enqueued[k]; ok && f.worker == "" && w.holds(f.at) {
				n++
			}
		}
		return n
	}
	bad, lostAcks := 0, 0
	for _, k := range acked {
		if acks[k]+garbage[k] == 0 && lost[k] {
			if _, err := r.store.GetJob(ctx, k.queue, k.id); !errors.Is(err, hopper.ErrJobNotFound) {
				t.Errorf("job %s/%s: its only ack is unconfirmed (reply lost or worker killed), yet GetJob gives %v", k.queue, k.id, err)
			}
			acks[k] = 1
			lostAcks++
		}
		if a, g, again := acks[k], garbage[k], resent(k); a+g < 1 || a+g > 1+again {
			bad++
			if bad <= 5 {
				t.Errorf("job %s/%s: %d successful acks and %d moves to garbage, want exactly one in all (or one more per Redis fault during its enqueue: %d)", k.queue, k.id, a, g, again)
			}
		}
	}
	for k := range acks {
		if acks[k] > 1 && !slices.Contains(acked, k) {
			t.Errorf("job %s/%s (enqueue not acknowledged) acked %d times", k.queue, k.id, acks[k])
		}
	}

	// Executions per job ≤ base + faults that touched it: a fault touches
	// an attempt when it came between the attempt's claim and its
	// successful finish (or there was none), on its worker or on Redis,
	// and touches the job when it came on Redis during its enqueue. A
	// lease that ran out touches its attempt too, when no injected fault
	// did, if its worker stalled or could not renew it (lapse): the
	// attempt started, never finished successfully, and the job was
	// claimed again at or after the last deadline that the attempt's claim
	// or renewals were granted. A lease that ran out otherwise, its worker
	// running and its renewals answered, is an error: the worker skipped
	// it. Accepted blind spot: a renewal whose reply was lost leaves the
	// deadline logged too early.
	starts := map[jobKey]int{}
	claims := map[jobKey][]proctest.Event{}
	fins := map[string]proctest.Event{}   // queue/id/token -> successful finish
	deadlines := map[string]time.Time{}   // queue/id/token -> the last deadline granted
	ran := map[string]bool{}              // queue/id/token -> its handler started
	ticks := map[string][]time.Time{}     // child -> its ticks (worker_test.go)
	extFails := map[string][]time.Time{}  // child -> its renewal calls that failed
	leaseErrs := map[string][]time.Time{} // queue/id/token -> renewals that could not check it
	blocked := map[string][]time.Time{}   // child -> when its ledger writes that waited for the pipe began
	tokenKey := func(e proctest.Event) string { return fmt.Sprintf("%s/%s/%d", e.Queue, e.Job, e.Token) }
	granted := func(e proctest.Event) { // a claim's or renewal's deadline
		if k := tokenKey(e); e.Deadline.After(deadlines[k]) {
			deadlines[k] = e.Deadline
		}
	}
	for _, e := range evs {
		switch e.Ev {
		case "start":
			starts[keyOf(e)]++
			ran[tokenKey(e)] = true
		case "claim":
			claims[keyOf(e)] = append(claims[keyOf(e)], e)
			granted(e)
		case "renew":
			granted(e)
		case "fin":
			if e.Err == "" {
				fins[tokenKey(e)] = e
			}
		case "tick":
			ticks[e.Child] = append(ticks[e.Child], at(e))
		case "blocked":
			blocked[e.Child] = append(blocked[e.Child], at(e))
		case "extfail":
			extFails[e.Child] = append(extFails[e.Child], at(e))
		case "exterr":
			leaseErrs[tokenKey(e)] = append(leaseErrs[tokenKey(e)], at(e))
		}
	}
	var lapses lapseCount
	over, unexplained := 0, 0
	for k, n := range starts {
		touched := resent(k)
		for _, c := range claims[k] {
			fin, finished := fins[tokenKey(c)]
			before := touched
			// When the claim happened: Redis's claim time when it is earlier
			// than the line (a worker stopped or killed between the claim
			// and its log line logs it late; Redis runs on this machine, so
			// the clocks agree).
			claimedAt := at(c)
			if !c.AttemptedAt.IsZero() && c.AttemptedAt.Before(claimedAt) {
				claimedAt = c.AttemptedAt
			}
			for _, f := range faults {
				if f.worker != "" && f.worker != c.Child {
					continue
				}
				if !f.at.Before(claimedAt.Add(-time.Millisecond)) && (!finished || !at(fin).Before(f.at)) {
					touched++
				}
			}
			if touched != before || finished || !ran[tokenKey(c)] {
				continue
			}
			next, dl := nextClaim(claims[k], c.Token), deadlines[tokenKey(c)]
			if next == nil || dl.IsZero() || next.AttemptedAt.Before(dl) {
				continue // its lease did not run out
			}
			// The renewal that granted dl reached Redis at dl - lease;
			// the worker's next renewal was due a renewal interval (the
			// default, which the workers use) later at most, and its
			// later ones each interval after. A worker running through
			// one of those intervals before dl renews the lease in time.
			lease := c.Deadline.Sub(c.AttemptedAt)
			every := min(lease/3, 500*time.Millisecond)
			from := dl.Add(-lease)
			switch stall, ok := stalled(ticks[c.Child], from.Add(every), dl.Add(-every)); {
			case ok:
				lapses.stalled++
				if anyWithin(blocked[c.Child], stall.Add(-tickEvery), dl) {
					lapses.piped++
				}
			case anyWithin(blocked[c.Child], from, dl):
				// Ticks got through, but the pipe drained so slowly
				// that the worker's goroutines, its lease renewals
				// among them, waited their turn to report.
				lapses.stalled++
				lapses.piped++
			case anyWithin(extFails[c.Child], from, dl.Add(every)) || anyWithin(leaseErrs[tokenKey(c)], from, dl.Add(every)):
				lapses.unrenewed++
			default:
				unexplained++
				if unexplained <= 5 {
					t.Errorf("job %s/%s: the lease of its attempt %d (token %d) on %s ran out at %s and the job was claimed again at %s, with no fault injected, no stall of %s and no failed renewal: the worker did not renew it",
						k.queue, k.id, c.Attempt, c.Token, c.Child, dl.Format("15:04:05.000"), next.AttemptedAt.Format("15:04:05.000"), c.Child)
				}
				continue
			}
			touched++
		}
		if n > base+touched {
			over++
			if over <= 5 {
				t.Errorf("job %s/%s ran %d times; %d faults touched it, so at most %d", k.queue, k.id, n, touched, base+touched)
			}
		}
	}

	// No state set left non-empty.
	for _, q := range r.queues {
		st, err := r.store.GetQueueStats(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want := store.StateCounts{}
		for k := range garbage {
			if k.queue == q {
				want.Garbage++
			}
		}
		if st.Counts != want {
			t.Errorf("queue %s: counts %+v after the run, want %+v", q, st.Counts, want)
		}
	}
	r.checkKeys(len(garbage) > 0)
	total := 0
	for _, n := range starts {
		total += n
	}
	t.Logf("ledger: %d acknowledged enqueues, %d failed, %d executions, %d faults, %d unconfirmed acks (reply lost or worker killed); leases of started jobs that ran out with no fault injected: %d while their worker stalled (%d of them on its full ledger pipe), %d while its renewals failed",
		len(acked), r.failed, total, len(faults), lostAcks, lapses.stalled, lapses.piped, lapses.unrenewed)
}

// lapseCount counts the leases of started jobs that ran out with no fault
// injected, by what let them run out.
type lapseCount struct {
	stalled   int // the worker reported no tick while the lease was to be renewed, or waited for the ledger pipe
	piped     int // of stalled, those where the worker's ledger writes waited for the pipe
	unrenewed int // the worker's renewal calls failed, or could not check the lease
}

// stalled reports whether ticks (a worker's, in order) leave a gap that
// spans [from, to], and the tick it began with: the worker ran nothing, or
// could report nothing, from before from until after to. After its last
// tick a worker reports none (it ended). A worker with no ticks at all is
// taken to have stalled.
func stalled(ticks []time.Time, from, to time.Time) (time.Time, bool) {
	if len(ticks) == 0 {
		return time.Time{}, true
	}
	// The last tick at or before from, and the one after it.
	i, _ := slices.BinarySearchFunc(ticks, from, func(t, from time.Time) int {
		if t.After(from) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return time.Time{}, false // it ticked first after from
	}
	if i < len(ticks) && ticks[i].Before(to) {
		return time.Time{}, false
	}
	return ticks[i-1], true
}

// anyWithin reports whether one of ts lies in [from, to].
func anyWithin(ts []time.Time, from, to time.Time) bool {
	for _, t := range ts {
		if !t.Before(from) && !t.After(to) {
			return true
		}
	}
	return false
}

// nextClaim returns the claim among claims (one job's) with the lowest
// token above token: the job's claim after that attempt; nil when none.
func nextClaim(claims []proctest.Event, token uint64) *proctest.Event {
	var next *proctest.Event
	for i, c := range claims {
		if c.Token > token && (next == nil || c.Token < next.Token) {
			next = &claims[i]
		}
	}
	return next
}

// longLived are the key suffixes that may stay after every job is gone:
// queue settings and marks (redisstore/LAYOUT.md), the lean mark, token counter,
// throughput counters, handler durations (a Worker's service), periodic
// ticks, the
// wake-up tokens (at most one element each), the unack set and attempt
// hash, which keep only their sentinel, the event stream, capped
// (checked below), and each Store's notes of its last claims, which expire
// with the lease. The store-wide registry of queues, workers and
// schedules stays too.
var longLived = map[string]bool{"c": true, "m": true, "ln": true, "n": true, "t": true, "pt": true, "w": true, "s": true, "u": true, "a": true, "ev": true, "du": true}

// checkKeys asserts that no per-job key is left: no jobs hash, ready list,
// pending, retry, done or garbage set (unless garbage is expected), error
// history, results, unique locks, extras or cancel set.
func (r *run) checkKeys(garbageExpected bool) {
	t := r.t
	t.Helper()
	ctx := context.Background()
	var keys []string
	scan := func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, "{"+r.prefix+"*", 1000).Iterator()
		for it.Next(ctx) {
			keys = append(keys, it.Val())
		}
		return it.Err()
	}
	var err error
	if len(r.nodes) > 0 {
		for _, addr := range r.nodes {
			c := redis.NewClient(&redis.Options{Addr: addr})
			err = errors.Join(err, scan(ctx, c))
			_ = c.Close()
		}
	} else if cc, ok := r.rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return scan(ctx, c)
		})
	} else {
		err = scan(ctx, r.rdb.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.HasPrefix(k, "{"+r.prefix+"}:") {
			continue // store-wide: queues, workers, schedules
		}
		_, suffix, _ := strings.Cut(k, "}:")
		switch {
		case suffix == "g" && garbageExpected:
		case suffix == "u":
			if n := r.rdb.ZCard(ctx, k).Val(); n != 1 {
				t.Errorf("key %s holds %d members, want only the sentinel", k, n)
			}
		case suffix == "a":
			if n := r.rdb.HLen(ctx, k).Val(); n != 1 {
				t.Errorf("key %s holds %d fields, want only the sentinel", k, n)
			}
		case suffix == "ev":
			// Trimming is approximate: whole nodes of up to 100 entries.
			if n := r.rdb.XLen(ctx, k).Val(); n > store.DefaultEventsMaxLen+100 {
				t.Errorf("event stream %s holds %d entries, want at most about %d", k, n, store.DefaultEventsMaxLen)
			}
		case longLived[suffix]:
		case strings.HasPrefix(suffix, "u:"):
			// A Store's notes of its last claims on the queue, which
			// expire with the lease (redisstore's takeback.go). One may
			// expire between the listing and this read (PTTL -2: gone),
			// or have under a millisecond left (PTTL 0): only -1 says it
			// has no TTL.
			if ttl := r.rdb.PTTL(ctx, k).Val(); ttl == -time.Nanosecond {
				t.Errorf("claim notes %s left without a TTL (%v)", k, ttl)
			}
		default:
			t.Errorf("key %s (type %s) left after the run", k, r.rdb.Type(ctx, k).Val())
		}
	}
}

// isTyped reports whether err wraps one of redisstore's error classes.
func isTyped(err error) bool {
	for _, c := range []error{redisstore.ErrUnavailable, redisstore.ErrOOM, redisstore.ErrNoPerm, redisstore.ErrAuth,
		redisstore.ErrReadOnly, redisstore.ErrLoading, redisstore.ErrClusterDown} {
		if errors.Is(err, c) {
			return true
		}
	}
	return false
}
