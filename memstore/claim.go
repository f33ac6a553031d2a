package memstore

import (
	"context"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// RetryIn values of a Claim held back by a limit other than the rate limit,
// whose window end is known exactly.
const (
	// pausedRetryIn is the RetryIn of a claim on a paused queue.
	pausedRetryIn = time.Second
	// busyRetryIn is the RetryIn of a claim held back by MaxRunning. A job
	// finishing frees a slot at any time and wakes WaitReady, so this only
	// bounds how long a caller that sleeps instead may stay idle.
	busyRetryIn = 100 * time.Millisecond
)

// Claim moves up to req.Max jobs from the front of ready to unack, each with
// Attempt+1, the claim's fencing token (one per call, shared by its jobs,
// unique and increasing across the whole store), AttemptedAt now and a
// lease deadline of now+req.Lease (rounded up to the millisecond). The returned records are deep copies, oldest first.
//
// A paused queue yields nothing with RetryIn one second. QueueConfig.MaxRunning
// caps the queue's unack jobs; when it holds jobs back, RetryIn is 100ms
// (finishing jobs also wake WaitReady). QueueConfig.RateLimit (and
// GroupRateLimit) follow store.RateTerms: a sliding window counts each
// claim for RatePeriod and the guard, and when it holds jobs back RetryIn
// is when the oldest claim it counts leaves the window; the smooth mode
// gives each job a slot (StartAfter) and RetryIn is when the next slot
// may be claimed (rate.go). Every claim of a rate-limited queue says the
// guard in StartWithin. A queue held by a handler (AttemptEnd.Hold)
// yields nothing with RetryIn the time left.
//
// req.WorkerID is not recorded: JobRecord has no field for it, and
// Heartbeat's WorkerInfo.Running is where a worker reports its jobs.
//
// A request that fails ClaimOpts.Validate gives its error. A queue never
// enqueued to yields nothing.
func (s *Store) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	if err := ctx.Err(); err != nil {
		return store.ClaimResult{}, err
	}
	if err := req.Validate(); err != nil {
		return store.ClaimResult{}, err
	}
	q := s.lookup(req.Queue)
	if q == nil {
		return store.ClaimResult{}, nil
	}
	now, nowMs, nowUs := s.nowUs()
	q.mu.Lock()
	defer q.unlock()
	n, retryIn := q.claimable(nowMs, nowUs, req.Max)
	if n == 0 {
		return store.ClaimResult{RetryIn: retryIn}, nil
	}
	// Taken first, as group caps may leave fewer than n claimable.
	taken, size := q.taken[:0], 0
	lim := takeLimits{defCap: q.cfg.GroupMaxRunning, nowMs: nowMs, nowUs: nowUs}
	if q.ready.grouped() {
		q.ready.unhold(nowMs)
		lim.rate = q.cfg.GroupRate()
	}
	taken = q.ready.take(lim, n, taken)
	for _, j := range taken {
		size += len(j.rec.Args)
	}
	q.taken = taken[:0] // its entries are cleared below
	n = len(taken)
	if q.ready.grouped() {
		// Held groups come back with no signal: the end of the first hold
		// is when to claim again.
		if left := q.ready.unhold(nowMs); left > 0 && (retryIn == 0 || time.Duration(left)*time.Millisecond < retryIn) {
			retryIn = time.Duration(left) * time.Millisecond
		}
	}
	if n == 0 {
		return store.ClaimResult{RetryIn: retryIn}, nil
	}
	res := store.ClaimResult{RetryIn: retryIn, StartWithin: q.cfg.ClaimGuard()}
	qr := q.cfg.QueueRate()
	var firstUs int64
	if qr.Limit > 0 {
		firstUs = q.rate.count(nowUs, n, qr)
	}
	b := newBatch(n, size)
	tok := s.token.Add(1)
	deadlineMs := nowMs + mstime.Ceil(req.Lease)
	deadline := atMs(now, nowMs, deadlineMs)
	for i, j := range taken {
		taken[i] = nil
		j.rec.Attempt++
		j.rec.Token = tok
		j.rec.AttemptedAt = now
		j.rec.Deadline = deadline
		q.attach(j, store.StateUnack, deadlineMs)
		b.set(i, &j.rec)
		if qr.Smooth() {
			j.after = max(j.after, startAfter(nowUs, firstUs, i, qr))
		}
		if j.after > 0 && res.StartAfter == nil {
			res.StartAfter = make([]time.Duration, n)
		}
		if res.StartAfter != nil {
			res.StartAfter[i] = time.Duration(j.after) * time.Microsecond
		}
		j.after = 0
		if ev := q.emit(store.EventStarted, j, now); ev != nil {
			ev.Worker = req.WorkerID
		}
	}
	res.Jobs = b.out
	return res, nil
}

// claimable returns how many of at most want ready jobs the queue's pause,
// hold, MaxRunning and rate limit let a claim take now, and, when a limit
// held some back, how long until trying again may succeed. q.mu must be
// held.
func (q *queue) claimable(nowMs, nowUs int64, want int) (n int, retryIn time.Duration) {
	if q.cfg.Paused {
		return 0, pausedRetryIn
	}
	if q.heldUntil > nowMs {
		return 0, untilMs(nowMs, q.heldUntil)
	}
	n = min(want, q.ready.n)
	if mr := q.cfg.MaxRunning; mr > 0 && mr-len(q.unack) < n {
		n = mr - len(q.unack)
		retryIn = busyRetryIn
	}
	if q.cfg.RateLimit > 0 {
		t := q.cfg.QueueRate()
		if room, freeUs := q.rate.room(nowUs, t); room < n {
			n = room
			retryIn = max(retryIn, rateRetryIn(nowUs, freeUs, t))
		}
	}
	return max(n, 0), retryIn
}
