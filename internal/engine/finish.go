package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/store"
)

// maxFinishBatch caps how many outcomes one Store.Finish call carries.
const maxFinishBatch = 1000

// finalFlushTimeout bounds how long a stopping worker keeps trying to report
// outcomes to an unreachable store. Unreported jobs are redelivered when
// their leases expire.
var finalFlushTimeout = 5 * time.Second

// finisher batches the outcomes of attempts into Store.Finish calls: it
// sends the first outcome at once and, while that call is in flight,
// collects the ones that arrive, so a lone job is never delayed and a busy
// worker makes one call per batch.
type finisher struct {
	r  *worker
	ch chan finishItem

	mu     sync.RWMutex // add holds it shared; close exclusively
	closed bool
	// closing is set when the worker stops claiming, and by close before it
	// waits for mu, so that flush can see it without the lock: an add
	// blocked on a full channel holds mu shared, and flush must give up
	// (letting the channel drain) rather than retry forever or queue
	// behind close for the lock.
	closing  atomic.Bool
	giveUpAt atomic.Int64 // unix ns: closing + finalFlushTimeout, one deadline for all batches
	done     chan struct{}

	// outages are what was logged of the failures to report each queue's
	// outcomes (logOutages), under outageMu: flushes run on several
	// lanes at once. inOutage counts them, for flushes to skip the lock
	// while none is.
	outageMu sync.Mutex
	outages  map[string]*retrylog.Outage
	inOutage atomic.Int32
}

// beginClosing starts the shutdown's single deadline for reporting
// outcomes to a failing store. Calling it again changes nothing.
func (f *finisher) beginClosing() {
	f.giveUpAt.CompareAndSwap(0, time.Now().Add(finalFlushTimeout).UnixNano())
	f.closing.Store(true)
}

type finishItem struct {
	a     *attempt
	req   *store.AttemptEnd
	tries int       // failed tries so far
	due   time.Time // when a failed outcome is tried again
}

func newFinisher(r *worker) *finisher {
	return &finisher{r: r, ch: make(chan finishItem, 2*r.cfg.Concurrency), done: make(chan struct{})}
}

// add queues an outcome. The attempt stays in the worker's active set, so
// its lease keeps being renewed, until the store has confirmed it.
func (f *finisher) add(a *attempt, req *store.AttemptEnd) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.closed {
		f.r.forget(a)
		return
	}
	f.ch <- finishItem{a: a, req: req}
}

// close stops accepting outcomes and waits until those queued are flushed.
func (f *finisher) close() {
	f.beginClosing()
	f.mu.Lock()
	f.closed = true
	close(f.ch)
	f.mu.Unlock()
	<-f.done
}

// finishTimeout bounds one Store.Finish call: a node that does not answer
// holds its lane no longer than this, and its outcomes are tried again.
const finishTimeout = 2 * time.Second

// finishLanes is how many Store.Finish calls the finisher has in flight at
// once, so that a call held up by a failing shard leaves the outcomes of
// healthy queues to the other lanes. A second call starts only once the
// calls in flight have taken slowFlush: until then the outcomes that come
// wait for the call in flight, which makes the batches (one call per batch
// is what keeps a busy worker cheap).
const finishLanes = 4

// slowFlush is how long the Finish calls in flight may take before the
// outcomes that came meanwhile go in a call of their own.
const slowFlush = 50 * time.Millisecond

// flushResult is what one flush leaves to the loop: the outcomes to try
// again, the queues whose outcomes the store took, and the batch it sent,
// cleared, for the loop to fill again.
type flushResult struct {
	again []finishItem
	ok    []string
	batch []finishItem
}

// endsPool recycles the request slices of flush: Store.Finish does not keep
// its reqs once it returns.
var endsPool = sync.Pool{New: func() any { return new([]store.AttemptEnd) }}

// loop sends batches until close and every outcome is reported or given
// up, on up to finishLanes calls at once. An outcome the store could not
// take (its queue's shard failing, the connection lost) waits for a
// backoff of its own, and until an outcome of its queue goes through the
// later outcomes of that queue wait with it, in batches apart: the
// outcomes of healthy queues never wait for a failing one.
func (f *finisher) loop() {
	defer close(f.done)
	var retry []finishItem
	suspect := map[string]bool{} // queues whose last outcome failed
	results := make(chan flushResult, finishLanes)
	lanes := 0
	var lastSent time.Time // when the newest call in flight started
	// spare holds the batches the calls sent and gave back, for the next
	// ones: a busy worker fills one batch a call, and growing each anew
	// was a fifth of the bytes a drained job allocated.
	var spare [][]finishItem
	send := func(batch []finishItem) {
		lanes++
		lastSent = time.Now()
		f.r.kept.Go(func() { results <- f.flush(batch) })
	}
	nextBatch := func() []finishItem {
		if n := len(spare); n > 0 {
			b := spare[n-1]
			spare = spare[:n-1]
			return b
		}
		return nil
	}
	// free reports whether a new call may start now: no call is in flight,
	// or the newest has taken slowFlush.
	free := func(now time.Time) bool {
		return lanes == 0 || lanes < finishLanes && now.Sub(lastSent) >= slowFlush
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	open := true
	var pending []finishItem // fresh outcomes waiting for a free lane
	for open || len(retry) > 0 || lanes > 0 || len(pending) > 0 {
		if !open && lanes == 0 && len(pending) == 0 && f.pastGiveUp() {
			f.giveUp(retry, errors.New("the store kept failing"))
			return
		}
		now := time.Now()
		next := now.Add(time.Hour)
		for _, it := range retry {
			if it.due.Before(next) {
				next = it.due
			}
		}
		if lanes > 0 && lanes < finishLanes {
			// A call in flight that takes slowFlush lets the next start.
			if at := lastSent.Add(slowFlush); at.Before(next) {
				next = at
			}
		}
		if !open {
			if at := time.Unix(0, f.giveUpAt.Load()); at.Before(next) {
				next = at
			}
		}
		// While no call may start, outcomes wait in the channel: the loop
		// wakes once per call, not once per outcome.
		in := f.ch
		if !open || len(pending) >= maxFinishBatch || !free(now) {
			in = nil
		}
		var done chan flushResult
		if lanes > 0 {
			done = results
		}
		timer.Reset(max(time.Until(next), 0))
		select {
		case it, ok := <-in:
			if ok {
				pending = append(pending, it)
			} else {
				open = false
			}
		case r := <-done:
			lanes--
			retry = append(retry, r.again...)
			for _, it := range r.again {
				suspect[it.req.Queue] = true
			}
			for _, q := range r.ok {
				delete(suspect, q)
			}
			if len(spare) < finishLanes {
				spare = append(spare, r.batch)
			}
		case <-timer.C:
		}
	drain:
		for open && len(pending) < maxFinishBatch {
			select {
			case it, ok := <-f.ch:
				if !ok {
					open = false
					break drain
				}
				pending = append(pending, it)
			default:
				break drain
			}
		}
		now = time.Now()
		// The outcomes of suspect queues wait with the retries.
		keepPending := pending[:0]
		for _, it := range pending {
			if suspect[it.req.Queue] {
				it.due = now
				retry = append(retry, it)
			} else {
				keepPending = append(keepPending, it)
			}
		}
		pending = keepPending
		if len(pending) > 0 && free(now) {
			send(pending)
			pending = nextBatch()
		}
		if len(retry) > 0 && free(now) {
			due := nextBatch()
			keep := retry[:0]
			for _, it := range retry {
				if !it.due.After(now) && len(due) < maxFinishBatch {
					due = append(due, it)
				} else {
					keep = append(keep, it)
				}
			}
			retry = keep
			if len(due) > 0 {
				send(due)
			} else if due != nil {
				spare = append(spare, due)
			}
		}
	}
}

// flush sends one batch and returns the outcomes to try again: those the
// store did not answer for (an error for the whole call, or one that is not
// a refusal), each with its next try's time. Once the worker has been
// closing for finalFlushTimeout, it gives them up instead. It may run on
// several goroutines at once.
func (f *finisher) flush(batch []finishItem) flushResult {
	buf := endsPool.Get().(*[]store.AttemptEnd)
	reqs := slices.Grow((*buf)[:0], len(batch))[:len(batch)]
	for i, it := range batch {
		reqs[i] = *it.req
	}
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	errs, err := f.r.st.Finish(ctx, reqs)
	cancel()
	if err == nil && len(errs) != len(reqs) {
		err = errors.New("store returned a wrong number of results")
	}
	clear(reqs) // what they point to (results, errors) is not kept alive
	*buf = reqs[:0]
	endsPool.Put(buf)
	var out flushResult
	var lastErr error
	var failed []queueFails
	now := time.Now()
	for i, it := range batch {
		e := err
		if e == nil {
			e = errs[i]
		}
		if e == nil || refusal(e) {
			if e != nil && appliedBefore(it, e) {
				e = nil
			}
			f.report(it, e)
			f.r.forget(it.a)
			if e == nil {
				f.r.confirmed(it.a, it.req.Outcome)
			}
			if k := len(out.ok); k == 0 || out.ok[k-1] != it.req.Queue {
				out.ok = append(out.ok, it.req.Queue)
			}
			continue
		}
		it.tries++
		it.due = now.Add(min(5*time.Second, time.Duration(1<<min(it.tries, 9))*10*time.Millisecond))
		out.again = append(out.again, it)
		lastErr = e
		if k := slices.IndexFunc(failed, func(q queueFails) bool { return q.queue == it.req.Queue }); k >= 0 {
			failed[k].jobs++
		} else {
			failed = append(failed, queueFails{queue: it.req.Queue, jobs: 1, err: e, retryIn: it.due.Sub(now)})
		}
	}
	sent := len(batch)
	clear(batch) // the attempts are not kept alive by the loop's spare batches
	out.batch = batch[:0]
	if len(out.again) > 0 && f.pastGiveUp() {
		f.giveUp(out.again, lastErr)
		out.again = nil
		return out
	}
	f.logOutages(failed, out.ok, sent, now)
	return out
}

// queueFails is what one flush failed to report of one queue.
type queueFails struct {
	queue   string
	jobs    int
	err     error
	retryIn time.Duration
}

// logOutages logs the queues whose outcomes a flush of sent failed to
// report (failed) and those whose outcomes it reported (ok), each queue's
// failures as one outage (retrylog.Outage): its first failure, then at
// most one line every retrylog.Every saying how many were left out, and
// one line once its outcomes go through again. During a failover every
// try of the backoff fails for a few seconds, and each was logged. A
// queue's outcomes fail together: a queue lives on one shard.
func (f *finisher) logOutages(failed []queueFails, ok []string, sent int, now time.Time) {
	if len(failed) == 0 && f.inOutage.Load() == 0 {
		return // the common case: no lock
	}
	f.outageMu.Lock()
	defer f.outageMu.Unlock()
	for _, q := range failed {
		o := f.outages[q.queue]
		if o == nil {
			if f.outages == nil {
				f.outages = map[string]*retrylog.Outage{}
			}
			o = new(retrylog.Outage)
			f.outages[q.queue] = o
			f.inOutage.Add(1)
		}
		if log, omitted := o.Failed(now); log {
			f.r.log.Error("hopper: reporting job outcomes failed; retrying them", slog.String("queue", q.queue),
				slog.Int("jobs", q.jobs), slog.Int("of", sent), slog.Any("error", q.err),
				slog.Duration("retry_in", q.retryIn), slog.Int("failures_not_logged", omitted))
		}
	}
	for _, q := range ok {
		o := f.outages[q]
		if o == nil || slices.ContainsFunc(failed, func(fq queueFails) bool { return fq.queue == q }) {
			continue
		}
		if log, n, lasted := o.Recovered(now); log {
			f.r.log.Info("hopper: reporting job outcomes works again", slog.String("queue", q),
				slog.Int("failures", n), slog.Duration("after", lasted))
		}
		delete(f.outages, q)
		f.inOutage.Add(-1)
	}
}

// refusal reports whether err is the store's answer about a request (the
// lease is lost, the job is gone, the request is invalid), as opposed to a
// failure to reach it: a refusal is final, a failure is tried again.
func refusal(err error) bool {
	for _, target := range []error{store.ErrLeaseLost, store.ErrJobNotFound, store.ErrInvalidQueue,
		store.ErrInvalidJob, store.ErrInvalidState, store.ErrInvalidConfig} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// appliedBefore reports whether err, the store's refusal of it, says that
// an earlier try of it, whose outcome is unknown (its reply lost with the
// link), applied it: an ack tried again that finds its job gone, as an
// ack without a retention leaves it. (With a retention the store itself
// answers such an ack with success: the job is in done under its claim.)
// A job deleted, or acked by another worker after this one's lease ran
// out, while the reply was lost reads the same: its handler succeeded
// here either way.
func appliedBefore(it finishItem, err error) bool {
	return it.tries > 0 && it.req.Outcome == store.OutcomeAck && errors.Is(err, store.ErrJobNotFound)
}

// pastGiveUp reports whether the worker has been closing for longer than
// finalFlushTimeout.
func (f *finisher) pastGiveUp() bool {
	return f.closing.Load() && time.Now().UnixNano() >= f.giveUpAt.Load()
}

// giveUp drops outcomes at shutdown: their jobs come back when their
// leases expire.
func (f *finisher) giveUp(items []finishItem, err error) {
	if len(items) == 0 {
		return
	}
	f.r.log.Error("hopper: giving up reporting job outcomes at shutdown; the jobs will be redelivered after their leases expire",
		slog.Int("jobs", len(items)), slog.Any("error", err))
	for _, it := range items {
		f.r.forget(it.a)
	}
}

func (f *finisher) report(it finishItem, err error) {
	if err == nil {
		return
	}
	level, msg := slog.LevelWarn, "hopper: store refused a job outcome"
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		level = slog.LevelInfo // the job was redelivered; the store refused the late outcome as it should
	case it.req.Outcome == store.OutcomeAck && errors.Is(err, store.ErrJobNotFound):
		// On a first try (a retried one is appliedBefore): a job whose
		// lease ran out while the link was slow and that another worker
		// ran and acked, a job deleted while it ran, or one Redis lost
		// (restarted without persistence, or failed over to a replica
		// that had not received it): either way it is gone, as an ack
		// wants.
		level, msg = slog.LevelInfo, "hopper: acked job already gone: acked by another worker after this one's lease ran out, deleted, "+
			"or lost by Redis (a restart without persistence, a failover to a replica behind)"
	}
	f.r.log.LogAttrs(context.Background(), level, msg,
		slog.String("queue", it.req.Queue), slog.String("id", it.req.ID),
		slog.String("outcome", it.req.Outcome.String()), slog.Any("error", err))
}
