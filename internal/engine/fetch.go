package engine

import (
	"cmp"
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/store"
)

// sweepPerIdleWait is how many queues an idle wait that ended without a
// signal marks for a claim anyway, in turn: the last resort against a
// signal lost to a fault, at a cost bounded however many queues there are.
const sweepPerIdleWait = 4

// claimsPerQueue is how many claims may be in flight on one queue: two
// while the last claim there came back full (a backlog) and the room holds
// a whole ClaimBatch for the second, one otherwise. Only a worker of one
// queue claims twice at once: with several, a queue whose shard stopped
// answering would hold the room of both claims until claimTimeout, and
// every other queue with it (TestClusterFailoverIsolation).
// A second claim keeps Redis busy while the first one's reply travels and
// its jobs are dispatched: claims on one queue are otherwise one round
// trip after another, and a backlog drains at the pace of that loop.
const claimsPerQueue = 2

// slowClaim is how long a claim may be out before the room it took is
// lent to the other queues: a shard that stopped answering holds its
// claims until claimTimeout, and with them, were they to keep their room,
// every queue of the worker (the room is shared among the queues due at
// the time, so two claims on a dead shard can take all of it). A slow
// claim that then returns jobs makes the worker hold more than its room
// for a moment; the executors take them in turn.
const slowClaim = 50 * time.Millisecond

// outClaim is one claim in flight.
type outClaim struct {
	id   uint64
	n    int
	sent time.Time
	slow bool
}

// never is a due time that does not come.
var never = time.Unix(1<<62, 0)

// fetcher is the fetch loop's view of its queues: when each is worth a
// claim, and which have a claim in flight.
//
// A queue is due for a claim at start (once), when the store signals it
// (WaitReady returned it), when the last claim on it filled its batch (more
// may be waiting), and when a limit that held it back said when to try
// again (ClaimResult.RetryIn). A claim that found the queue empty makes it
// due "never", until the next signal. A queue whose claim failed is due
// again after a backoff of its own, and is then asked for one job only.
type fetcher struct {
	due      []time.Time       // per queue index
	fails    []int             // consecutive claim errors per queue
	outage   []retrylog.Outage // what of those errors was logged, per queue
	busy     []int             // claims in flight on the queue
	full     []bool            // the queue's last claim came back with all it asked for
	qres     []int             // jobs asked for by the queue's claims in flight
	again    []bool            // signalled while its claim was in flight: claim again after it
	reserved int               // room taken by the claims in flight: the jobs they asked for
	out      []outClaim        // the claims in flight, oldest first
	slowRes  int               // of reserved, what slow claims asked for (see slowClaim)
	nextID   uint64            // the ID of the newest claim
	sweep    int               // the next queue of the rotating check
	swept    time.Time         // when the rotating check last ran

	// gates order the results of each queue's claims (claim_gate.go).
	gates []*claimGate
	// paced marks the queues whose last claim with jobs a rate limit
	// counted (ClaimResult.StartWithin): they are claimed for idle executors
	// only, as a job that waits in the Prefetch buffer past the bound is
	// handed back.
	paced []bool
}

// claimDone is the result of one claim.
type claimDone struct {
	id   uint64
	qi   int
	want int // what the claim asked for (its reservation)
	res  store.ClaimResult
	err  error
	sent time.Time
}

// readySignal is what one wait for ready jobs returned: the queues
// signalled, or none after a whole IdleWait.
type readySignal struct {
	queues []string
}

// fetchLoop claims jobs and hands them to the executors until ctx is done.
//
// Claims run on goroutines of their own, one at a time per queue (two
// while the queue has a backlog, see claimsPerQueue), each
// taking from the worker's room (Concurrency + Prefetch, less the jobs
// held) the jobs it asks for until it returns, so that the worker never
// holds more than its room; the room is shared among the queues due at
// once. A claim on a queue whose shard is slow or down holds back no claim
// on another, and is bounded by claimTimeout. With StrictPriority one claim is in
// flight at a time, so that a lower queue is only claimed from after every
// higher one was found empty. The loop claims at once when an executor
// would otherwise sit idle, and tops up the Prefetch buffer when at least
// half of it is free, so that a busy worker claims (and acks) in batches.
//
// Signals come from one goroutine that blocks in Store.WaitReady on every
// queue (signalLoop): an idle worker makes one blocking wait however many
// queues it serves, and claims only where it was told there may be work.
func (r *worker) fetchLoop(ctx context.Context) {
	n := len(r.queues)
	f := &fetcher{due: make([]time.Time, n), fails: make([]int, n), outage: make([]retrylog.Outage, n), busy: make([]int, n), full: make([]bool, n),
		qres: make([]int, n), again: make([]bool, n), paced: make([]bool, n)}
	results := make(chan claimDone, claimsPerQueue*n) // at most claimsPerQueue per queue in flight
	signals := make(chan readySignal)
	sigCtx, stopSignals := context.WithCancel(ctx)
	var sigDone sync.WaitGroup
	sigDone.Go(func() { r.signalLoop(sigCtx, signals) })
	defer func() {
		stopSignals()
		sigDone.Wait()
	}()

	order := make([]int, 0, n)
	refill := max(1, r.cfg.Prefetch/2)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	armed := time.Now().Add(time.Hour) // what timer is set for
	defer r.wakeAt.Store(math.MaxInt32)
	for ctx.Err() == nil {
		now := time.Now()
		if now.Sub(f.swept) >= r.cfg.IdleWait {
			// The rotating check runs every IdleWait whatever else
			// goes on: a worker busy with one queue, whose wake-ups
			// keep the signal loop's waits short, would otherwise never
			// look at another whose wake-up was lost.
			f.sweepSome(now)
		}
		slowAt := f.markSlow(now)
		r.publishWake(f, now, refill)
		order = r.launchClaims(ctx, f, now, order[:0], refill, results)
		r.publishWake(f, now, refill)
		// Sleep until something happens: a claim returns, a signal, a
		// freed slot, the next due time of a queue that could be
		// claimed from, or the next rotating check: a signal loop stuck
		// in a wait that outlives its timeout must not stop it.
		next := slowAt
		if at := f.swept.Add(r.cfg.IdleWait); at.Before(next) {
			next = at
		}
		for qi := range r.queues {
			if f.busy[qi] == 0 && !r.capFull(f, qi) && f.due[qi].After(now) && f.due[qi].Before(next) {
				next = f.due[qi]
			}
		}
		// The timer is set again only when the time changes: the loop wakes
		// for every job that ends while the room is full, and a Reset each
		// time costs the runtime's timer lock.
		if !next.Equal(armed) {
			armed = next
			timer.Reset(max(time.Until(next), time.Millisecond))
		}
		select {
		case <-ctx.Done():
		case d := <-results:
			r.claimed(ctx, f, d)
		case s := <-signals:
			now := time.Now()
			for _, q := range s.queues {
				qi, ok := slices.BinarySearch(r.queues, q)
				switch {
				case !ok || f.fails[qi] > 0:
				case f.busy[qi] > 0:
					// The claim in flight may have looked before the
					// jobs signalled came: look again after it.
					f.again[qi] = true
				default:
					f.due[qi] = now
				}
			}
			if len(s.queues) == 0 {
				f.sweepSome(now)
			}
		case <-r.freed:
		case <-timer.C:
			armed = never.Add(time.Nanosecond) // fired: set it again
		}
	}
	// The claims in flight end with ctx; jobs they got are dispatched, for
	// the shutdown to hand back.
	for len(f.out) > 0 {
		r.claimed(ctx, f, <-results)
	}
}

// publishWake tells the executors at how many held attempts a freed slot
// may let launchClaims claim again, so that the attempts decided above
// that level do not wake the loop: in a drain, where the room stays
// full, that was a wake of this goroutine per job, for a claim every
// refill jobs. The level is launchClaims's room test solved for r.held:
// room for one job when a queue due now has no claim in flight (its cap
// in this worker may free with the same decision), else room for a whole
// batch (a queue's second claim); and room for refill jobs once every
// executor is busy. It may be higher than needed (a wake that claims
// nothing), never lower. The loop publishes before launchClaims reads
// r.held and again once its claims took their room (the level only falls
// then), so that an attempt decided in between finds a level at least as
// high as the one the loop sleeps on.
func (r *worker) publishWake(f *fetcher, now time.Time, refill int) {
	c, room := r.cfg.Concurrency, r.cfg.Concurrency+r.cfg.Prefetch
	need := r.cfg.ClaimBatch
	for qi := range r.queues {
		if f.busy[qi] == 0 && !f.due[qi].After(now) {
			need = 1
			break
		}
	}
	level := min(room-need, max(c-1, room-refill)) - f.reserved + min(f.slowRes, room)
	r.wakeAt.Store(int32(level))
}

// launchClaims starts a claim on each queue due at now, in claimOrder's
// order, while the worker has room, and returns order (reused).
func (r *worker) launchClaims(ctx context.Context, f *fetcher, now time.Time, order []int, refill int, out chan<- claimDone) []int {
	// Slow claims lend their room, at most once over: the worker never
	// holds more than twice its room, which the jobs channel has space for.
	held := int(r.held.Load()) + f.reserved - min(f.slowRes, r.cfg.Concurrency+r.cfg.Prefetch)
	room := r.cfg.Concurrency + r.cfg.Prefetch - held
	if room <= 0 || (held >= r.cfg.Concurrency && room < refill) {
		return order
	}
	if r.cfg.StrictPriority && len(f.out) > 0 {
		return order
	}
	order = r.claimOrder(f, now, order)
	// The room is shared among the queues due, so that claims held up on
	// a failing shard leave room to the others.
	share := max(1, (room+len(order)-1)/max(len(order), 1))
	idle := r.cfg.Concurrency - held // executors free for a paced queue
	for _, qi := range order {
		n := min(room, share, r.cfg.ClaimBatch)
		if f.paced[qi] {
			n = min(n, idle)
		}
		if c := r.qcap[qi]; c > 0 {
			n = min(n, c-int(r.qheld[qi].Load())-f.qres[qi])
		}
		if f.fails[qi] > 0 {
			n = min(n, 1) // a queue that failed is probed with one job
		}
		if n <= 0 || f.busy[qi] > 0 && n < r.cfg.ClaimBatch {
			continue // a second claim only for a whole batch: small claims cost more than they save
		}
		f.busy[qi]++
		f.qres[qi] += n
		f.reserved += n
		room -= n
		idle -= n
		f.nextID++
		f.out = append(f.out, outClaim{id: f.nextID, n: n, sent: now})
		var gate *claimGate // nil: results go out as they come back
		if r.cfg.OrderedStarts {
			gate = f.gate(qi)
		}
		id := f.nextID
		r.kept.Go(func() { r.claim(ctx, id, qi, n, gate, out) })
		if room <= 0 || r.cfg.StrictPriority {
			break
		}
	}
	return order
}

// claimTimeout bounds one claim: a node that does not answer holds the
// queue's claim no longer than this (the queue then backs off).
func (r *worker) claimTimeout() time.Duration { return min(r.cfg.Lease/2, 5*time.Second) }

// claim runs one claim on queue qi for up to want jobs and sends its
// result to out through the queue's gate, in the order the store took the
// jobs of the queue's claims.
func (r *worker) claim(ctx context.Context, id uint64, qi, want int, gate *claimGate, out chan<- claimDone) {
	cctx, cancel := context.WithTimeout(ctx, r.claimTimeout())
	sent := time.Now()
	res, err := r.st.Claim(cctx, store.ClaimOpts{Queue: r.queues[qi], Max: want, Lease: r.cfg.Lease, WorkerID: r.cfg.ID})
	cancel()
	gate.deliver(claimDone{id: id, qi: qi, want: want, res: res, err: err, sent: sent}, out)
}

// claimed acts on a claim's result: its jobs go to the executors, and the
// queue's next due time follows from what it found.
func (r *worker) claimed(ctx context.Context, f *fetcher, d claimDone) {
	qi := d.qi
	f.busy[qi]--
	f.qres[qi] -= d.want
	// A store that returns more than asked (breaking Claim's contract)
	// filled the claim too: more may be waiting.
	full := d.err == nil && len(d.res.Jobs) >= d.want
	f.full[qi] = full
	f.reserved -= d.want
	f.returned(d.id)
	now := time.Now()
	if len(d.res.Jobs) > 0 { // an empty claim says no StartWithin
		f.paced[qi] = d.res.StartWithin > 0
	}
	for i, rec := range d.res.Jobs {
		// A rate limit's bounds (store.RateTerms): not before its slot,
		// counted from the reply, which came after the store's now; not
		// after its slot and the guard, counted from the request, which
		// left before it.
		var after time.Duration
		if i < len(d.res.StartAfter) {
			after = d.res.StartAfter[i]
		}
		var startBy time.Time
		if d.res.StartWithin > 0 {
			startBy = d.sent.Add(after + d.res.StartWithin)
		}
		r.dispatch(rec, qi, d.sent.Add(r.cfg.Lease), now.Add(after), startBy)
	}
	if f.busy[qi] > 0 && d.err == nil {
		// Another claim on the queue is in flight: it decides when the
		// queue is due (with a signal that came meanwhile) as it returns,
		// unless this one says more may be waiting.
		if full {
			f.due[qi] = now
		}
		return
	}
	if f.busy[qi] == 0 {
		defer func() { f.again[qi] = false }()
	}
	if d.err != nil {
		if ctx.Err() != nil {
			return
		}
		f.fails[qi]++
		wait := min(5*time.Second, time.Duration(1<<min(f.fails[qi], 9))*10*time.Millisecond)
		f.due[qi] = now.Add(wait)
		if log, omitted := f.outage[qi].Failed(now); log {
			r.log.Error("hopper: claiming jobs failed; retrying", slog.String("queue", r.queues[qi]),
				slog.Any("error", d.err), slog.Duration("retry_in", wait), slog.Int("failures_not_logged", omitted))
		}
		return
	}
	f.fails[qi] = 0
	if log, n, lasted := f.outage[qi].Recovered(now); log {
		r.log.Info("hopper: claiming jobs works again", slog.String("queue", r.queues[qi]),
			slog.Int("failures", n), slog.Duration("after", lasted))
	}
	switch {
	case f.again[qi] || len(d.res.Jobs) >= d.want:
		f.due[qi] = now // a full batch: more may be waiting
	case d.res.RetryIn > 0:
		f.due[qi] = now.Add(d.res.RetryIn)
	default:
		f.due[qi] = never // until the store signals it
	}
}

// signalLoop waits for ready jobs on every queue, one WaitReady at a time
// for IdleWait at most, and sends what each returned to out (a wait that
// returned nothing after IdleWait too, for the rotating check). A failing
// wait is retried with a backoff.
func (r *worker) signalLoop(ctx context.Context, out chan<- readySignal) {
	fails := 0
	var outage retrylog.Outage
	for ctx.Err() == nil {
		got, err := r.st.WaitReady(ctx, r.queues, r.cfg.IdleWait)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			fails++
			d := min(5*time.Second, time.Duration(1<<min(fails, 9))*10*time.Millisecond)
			if log, omitted := outage.Failed(time.Now()); log {
				r.log.Error("hopper: waiting for jobs failed; retrying", slog.Any("error", err), slog.Duration("retry_in", d),
					slog.Int("failures_not_logged", omitted))
			}
			sleepCtx(ctx, d)
			continue
		}
		if ctx.Err() != nil {
			return // a wait cut short by the stop is no success
		}
		fails = 0
		if log, n, lasted := outage.Recovered(time.Now()); log {
			r.log.Info("hopper: waiting for jobs works again", slog.Int("failures", n), slog.Duration("after", lasted))
		}
		select {
		case out <- readySignal{queues: got}:
		case <-ctx.Done():
			return
		}
	}
}

// markSlow marks the claims out for slowClaim as slow, and returns when
// the next one will be (never when none is out).
func (f *fetcher) markSlow(now time.Time) time.Time {
	for i := range f.out {
		c := &f.out[i]
		if c.slow {
			continue
		}
		at := c.sent.Add(slowClaim)
		if now.Before(at) {
			return at // the others are younger
		}
		c.slow = true
		f.slowRes += c.n
	}
	return never
}

// returned forgets the claim id, which came back.
func (f *fetcher) returned(id uint64) {
	for i, c := range f.out {
		if c.id == id {
			if c.slow {
				f.slowRes -= c.n
			}
			f.out = slices.Delete(f.out, i, i+1)
			return
		}
	}
}

// sweepSome marks the next few queues due, in turn: a wait as long as the
// idle wait ended without a signal, or an IdleWait passed since the last
// sweep.
func (f *fetcher) sweepSome(now time.Time) {
	f.swept = now
	n := len(f.due)
	for range min(sweepPerIdleWait, n) {
		qi := f.sweep % n
		f.sweep++
		if f.due[qi].After(now) && f.fails[qi] == 0 {
			f.due[qi] = now
		}
	}
}

// capFull reports whether this worker holds, or has claims in flight for,
// as many jobs of queue qi as its QueueConcurrency allows.
func (r *worker) capFull(f *fetcher, qi int) bool {
	c := r.qcap[qi]
	return c > 0 && int(r.qheld[qi].Load())+f.qres[qi] >= c
}

// claimOrder appends to order the indexes of the queues due for a claim at
// now, with room for a claim in flight (see claimsPerQueue), not at their
// cap in this worker and with no hold of theirs on its way to the store
// (worker.qholds), in the order to try them:
// highest weight first with StrictPriority, otherwise a random order in
// which each queue comes first in proportion to its weight.
func (r *worker) claimOrder(f *fetcher, now time.Time, order []int) []int {
	for qi := range r.queues {
		if !f.due[qi].After(now) && !r.capFull(f, qi) && r.qholds[qi].Load() == 0 &&
			(f.busy[qi] == 0 || len(r.queues) == 1 && f.busy[qi] < claimsPerQueue && f.full[qi] && f.fails[qi] == 0) {
			order = append(order, qi)
		}
	}
	if len(order) <= 1 {
		return order
	}
	if r.cfg.StrictPriority {
		slices.SortStableFunc(order, func(a, b int) int { return r.weights[b] - r.weights[a] })
		return order
	}
	// A weighted draw without replacement (Efraimidis and Spirakis): each
	// queue draws log(u)/weight for a uniform u and the highest go first,
	// which puts a queue first in proportion to its weight, in n log n.
	keys := make([]float64, len(r.queues))
	for _, qi := range order {
		keys[qi] = math.Log(1-rand.Float64()) / float64(r.weights[qi])
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(keys[b], keys[a]) })
	return order
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
