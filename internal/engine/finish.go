package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

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
}

// beginClosing starts the shutdown's single deadline for reporting
// outcomes to a failing store. Calling it again changes nothing.
func (f *finisher) beginClosing() {
	f.giveUpAt.CompareAndSwap(0, time.Now().Add(finalFlushTimeout).UnixNano())
	f.closing.Store(true)
}

type finishItem struct {
	a   *attempt
	req *store.FinishRequest
}

func newFinisher(r *worker) *finisher {
	return &finisher{r: r, ch: make(chan finishItem, 2*r.cfg.Concurrency), done: make(chan struct{})}
}

// add queues an outcome. The attempt stays in the worker's active set, so
// its lease keeps being renewed, until the store has confirmed it.
func (f *finisher) add(a *attempt, req *store.FinishRequest) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.closed {
		f.r.forget(a)
		return
	}
	f.ch <- finishItem{a, req}
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

// loop sends batches until close.
func (f *finisher) loop() {
	defer close(f.done)
	batch := make([]finishItem, 0, 64)
	for {
		it, ok := <-f.ch
		if !ok {
			return
		}
		batch = append(batch[:0], it)
	drain:
		for len(batch) < maxFinishBatch {
			select {
			case it, ok := <-f.ch:
				if !ok {
					break drain
				}
				batch = append(batch, it)
			default:
				break drain
			}
		}
		f.flush(batch)
	}
}

// flush sends one batch, retrying while the store fails. Once the worker is
// closing it gives up when finalFlushTimeout has passed since it began
// closing: one deadline for every batch still queued.
func (f *finisher) flush(batch []finishItem) {
	reqs := make([]store.FinishRequest, len(batch))
	for i, it := range batch {
		reqs[i] = *it.req
	}
	for try := 0; ; try++ {
		errs, err := f.r.st.Finish(context.Background(), reqs)
		if err == nil && len(errs) == len(reqs) {
			for i, e := range errs {
				f.report(batch[i], e)
			}
			break
		}
		if err == nil {
			err = errors.New("store returned a wrong number of results")
		}
		d := min(5*time.Second, time.Duration(1<<min(try, 9))*10*time.Millisecond)
		if f.closing.Load() {
			left := time.Until(time.Unix(0, f.giveUpAt.Load()))
			if left <= 0 {
				f.r.log.Error("hopper: giving up reporting job outcomes at shutdown; the jobs will be redelivered after their leases expire",
					slog.Int("jobs", len(reqs)), slog.Any("error", err))
				break
			}
			d = min(d, left)
		}
		f.r.log.Error("hopper: reporting job outcomes failed; retrying",
			slog.Int("jobs", len(reqs)), slog.Any("error", err), slog.Duration("retry_in", d))
		time.Sleep(d)
	}
	for _, it := range batch {
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
		// Most often a retried ack whose first try was applied (its reply
		// was lost with the connection), else a job deleted while it ran:
		// either way it is gone, as an ack wants.
		level, msg = slog.LevelInfo, "hopper: acked job already gone (an ack retried after a lost reply, or the job was deleted)"
	}
	f.r.log.LogAttrs(context.Background(), level, msg,
		slog.String("queue", it.req.Queue), slog.String("id", it.req.ID),
		slog.String("outcome", it.req.Outcome.String()), slog.Any("error", err))
}
