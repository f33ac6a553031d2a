package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/store"
)

// The worker's modes, as its heartbeat reports them (store.WorkerState).
const (
	modeRunning int32 = iota
	modeQuiet
	modeStopping
)

// fetchContext returns the context the fetch loop claims under: it ends
// with ctx, or when the worker is quieted.
func (r *worker) fetchContext(ctx context.Context) context.Context {
	fctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-r.quieted:
			cancel()
		case <-fctx.Done():
		}
	}()
	return fctx
}

// quiet stops the worker claiming; running jobs finish and Run goes on
// until its context ends or stop. Safe to call more than once. The mode
// becomes quiet once the fetch loop has ended (quieted).
func (r *worker) quiet() {
	r.quietNow.Do(func() { close(r.quieted) })
}

// quietened records that the fetch loop ended on quiet: no claim is in
// flight, and none starts. The registry hears of it at once.
func (r *worker) quietened() {
	r.mode.CompareAndSwap(modeRunning, modeQuiet)
	select {
	case r.beat <- struct{}{}:
	default:
	}
}

// takeCommand takes the operator's command waiting for the worker, if the
// store carries them, and acts on it: quiet, or stop as when Run's context
// ends. Called by the heartbeat loop before each heartbeat, so the
// heartbeat reports the new state.
func (r *worker) takeCommand(ctx context.Context) {
	if r.ctl == nil || r.mode.Load() == modeStopping {
		return
	}
	cmd, err := r.ctl.TakeWorkerCommand(ctx, r.cfg.ID)
	if err != nil {
		if ctx.Err() == nil {
			if log, omitted := r.cmdOutage.Failed(time.Now()); log {
				r.log.Warn("hopper: reading the worker's commands failed", slog.Any("error", err), slog.Int("failures_not_logged", omitted))
			}
		}
		return
	}
	r.cmdOutage.Recovered(time.Now()) // the heartbeat's line says it works again
	switch cmd {
	case store.WorkerQuiet:
		r.log.Info("hopper: worker quieted by an operator: claiming no more jobs", slog.String("worker", r.cfg.ID))
		r.quiet()
	case store.WorkerStop:
		r.log.Info("hopper: worker stopped by an operator: shutting down", slog.String("worker", r.cfg.ID))
		r.quiet()
		r.mode.Store(modeStopping)
		r.stopRun()
	case "":
	default:
		r.log.Warn("hopper: unknown worker command ignored", slog.String("command", string(cmd)))
	}
}

// state is the worker's mode as the registry shows it.
func (r *worker) state() store.WorkerState {
	switch r.mode.Load() {
	case modeQuiet:
		return store.WorkerStateQuiet
	case modeStopping:
		return store.WorkerStateStopping
	}
	return store.WorkerStateRunning
}
