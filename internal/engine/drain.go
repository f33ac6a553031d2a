package engine

import (
	"context"
	"errors"
	"time"

	"github.com/hopperq/hopper/store"
)

// Drain runs, one at a time in the calling goroutine, the jobs that are
// ready in cfg's queues, until none is left or ctx ends, and returns how
// many attempts it ran (recording how long their handlers ran, once, at
// the end). Each job goes the way Run would take it (claim
// with a lease and a token, the handler chain, the outcome reported with
// Finish), but nothing runs in the background: no lease renewal (a handler
// must return within cfg.Lease; progress is sent before the outcome), no
// scheduler, no heartbeat; cfg.Finished runs in the calling goroutine. It
// returns the first store error, or ctx's.
func Drain(ctx context.Context, st store.Store, cfg Config, h Handler) (int, error) {
	r := newWorker(st, cfg, h)
	r.jobBase = ctx
	defer r.flushDurations(ctx)
	slot := newSlotCtx(ctx) // the parent of every attempt's context, as an executor's
	defer slot.close()
	ran := 0
	for {
		before := ran
		for qi, q := range r.queues {
			if err := ctx.Err(); err != nil {
				return ran, err
			}
			res, err := st.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1, Lease: cfg.Lease, WorkerID: cfg.ID})
			if err != nil {
				return ran, err
			}
			for _, rec := range res.Jobs {
				ran++
				if err := r.runNow(ctx, slot, &attempt{rec: rec, w: r, qi: qi, prog: progress{percent: -1}}); err != nil {
					return ran, err
				}
			}
		}
		if ran == before {
			return ran, nil
		}
	}
}

// runNow runs one attempt in the calling goroutine, on slot, and reports
// its outcome to the store.
func (r *worker) runNow(ctx context.Context, slot *slotCtx, a *attempt) error {
	start := time.Now()
	a.started.Store(start.UnixNano())
	actx, _ := r.beginAttempt(slot, a, start)
	err := r.invoke(actx, a.rec)
	r.durs.add(a.rec.Queue, a.rec.Kind, time.Since(start))
	actx.stop()
	slot.end()
	a.finish()
	r.flushProgress(a)
	a.err = err
	req := r.finishRequest(a, err)
	if req == nil {
		return nil
	}
	errs, err := r.st.Finish(ctx, []store.AttemptEnd{*req})
	if err != nil {
		return err
	}
	if len(errs) != 1 {
		return errors.New("hopper: store returned a wrong number of results")
	}
	if errs[0] != nil && !errors.Is(errs[0], store.ErrLeaseLost) && !errors.Is(errs[0], store.ErrJobNotFound) {
		return errs[0]
	}
	if errs[0] == nil && r.cfg.Finished != nil {
		r.runHook(hookCall{rec: a.rec, o: req.Outcome, err: a.err})
	}
	return nil
}
