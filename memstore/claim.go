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
// Attempt+1, a new fencing token (unique and increasing across the whole
// store), AttemptedAt now and a lease deadline of now+req.Lease (rounded up
// to the millisecond). The returned records are deep copies, oldest first.
//
// A paused queue yields nothing with RetryIn one second. QueueConfig.MaxRunning
// caps the queue's unack jobs; when it holds jobs back, RetryIn is 100ms
// (finishing jobs also wake WaitReady). QueueConfig.RateLimit caps the jobs
// claimed per fixed window of RatePeriod (default one second) aligned on the
// Unix epoch; when it holds jobs back, RetryIn is the time left in the
// window. A fixed window may let up to twice the limit through across a
// window boundary.
//
// req.WorkerID is not recorded: JobRecord has no field for it, and
// Heartbeat's WorkerInfo.Running is where a worker reports its jobs.
//
// A request that fails ClaimRequest.Validate gives its error. A queue never
// enqueued to yields nothing.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
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
	now, nowMs := s.now()
	q.mu.Lock()
	defer q.unlock()
	n, retryIn := q.claimable(nowMs, req.Max)
	if n == 0 {
		return store.ClaimResult{RetryIn: retryIn}, nil
	}
	size := 0
	for j, i := q.ready.head, 0; i < n; j, i = j.next, i+1 {
		size += len(j.rec.Args)
	}
	b := newBatch(n, size)
	tok := s.token.Add(uint64(n)) - uint64(n)
	deadlineMs := nowMs + mstime.Ceil(req.Lease)
	deadline := atMs(now, nowMs, deadlineMs)
	for i := range n {
		j := q.ready.popFront()
		tok++
		j.rec.Attempt++
		j.rec.Token = tok
		j.rec.AttemptedAt = now
		j.rec.Deadline = deadline
		q.attach(j, store.StateUnack, deadlineMs)
		b.set(i, &j.rec)
		if ev := q.emit(store.EventStarted, j, now); ev != nil {
			ev.Worker = req.WorkerID
		}
	}
	if q.cfg.RateLimit > 0 {
		q.rate.used += n
	}
	return store.ClaimResult{Jobs: b.out, RetryIn: retryIn}, nil
}

// claimable returns how many of at most want ready jobs the queue's pause,
// MaxRunning and rate limit let a claim take now, and, when a limit held
// some back, how long until trying again may succeed. q.mu must be held.
func (q *queue) claimable(nowMs int64, want int) (n int, retryIn time.Duration) {
	if q.cfg.Paused {
		return 0, pausedRetryIn
	}
	n = min(want, q.ready.n)
	if mr := q.cfg.MaxRunning; mr > 0 && mr-len(q.unack) < n {
		n = mr - len(q.unack)
		retryIn = busyRetryIn
	}
	if q.cfg.RateLimit > 0 {
		if room, endMs := q.rateRoom(nowMs); room < n {
			n = room
			retryIn = max(retryIn, untilMs(nowMs, endMs))
		}
	}
	return max(n, 0), retryIn
}

// rateWindow counts the jobs claimed in the current rate-limit window.
type rateWindow struct {
	index int64 // window number: Unix ms divided by the period
	used  int
}

// rateRoom returns how many jobs the current rate window still allows and
// when it ends, in Unix ms. q.mu must be held.
func (q *queue) rateRoom(nowMs int64) (room int, endMs int64) {
	p := mstime.Ceil(q.cfg.RatePeriod)
	if p == 0 { // a config set without the Inspector
		p = store.DefaultRatePeriod.Milliseconds()
	}
	idx := nowMs / p
	if nowMs < 0 && nowMs%p != 0 {
		idx--
	}
	if idx != q.rate.index {
		q.rate = rateWindow{index: idx}
	}
	return q.cfg.RateLimit - q.rate.used, (idx + 1) * p
}
