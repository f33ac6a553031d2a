package engine

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/hopperq/hopper/store"
)

// Hooks. Config.Finished is called for every outcome the store confirmed,
// on one goroutine of the worker's, one call at a time and in the order
// the store confirmed them, so that a hook never runs for an outcome the
// store refused (a lost lease) and never twice for one. Outcomes wait in
// a queue of 4×Concurrency; when a slow hook lets it fill, reporting
// outcomes waits for the hook: a hook slows the worker rather than being
// skipped.

// hookCall is one confirmed outcome.
type hookCall struct {
	rec *store.JobRecord
	o   store.Outcome
	err error
}

// hookLoop runs the hook for each call until calls is closed.
func (r *worker) hookLoop(calls <-chan hookCall) {
	for c := range calls {
		r.runHook(c)
	}
}

// runHook calls the hook, turning a panic into a log line.
func (r *worker) runHook(c hookCall) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("hopper: a job hook panicked",
				slog.String("queue", c.rec.Queue), slog.String("id", c.rec.ID),
				slog.String("outcome", c.o.String()), slog.String("panic", fmt.Sprint(v)),
				slog.String("stack", string(debug.Stack())))
		}
	}()
	r.cfg.Finished(r.jobBase, c.rec, c.o, c.err)
}

// confirmed hands an outcome the store confirmed to the hook, if any.
func (r *worker) confirmed(a *attempt, o store.Outcome) {
	if r.hooks != nil {
		r.hooks <- hookCall{rec: a.rec, o: o, err: a.err}
	}
}
