package engine

import (
	"context"
	"time"

	"github.com/hopperq/hopper/store"
)

// Progress. A handler's reports (hopper.Progress, hopper.Log) are kept on
// its attempt until the lease loop sends them with the next renewal batch
// (every RenewEvery), so that reporting costs no round trip of its own
// however often a handler reports; the last report before the handler
// returns is sent, in a renewal of its own, before its outcome.

// progress is what an attempt reported. It is guarded by the attempt's mu.
type progress struct {
	dirty   bool            // something was reported since the last send
	percent float64         // the latest percentage, -1 before any
	data    []byte          // the latest data
	lines   []store.LogLine // not sent yet, at most store.MaxLogLines
}

// ReportProgress records percent and data as the progress of the attempt
// running in ctx; it reports false outside an attempt. The caller checks
// the values (store.Progress.Validate).
func ReportProgress(ctx context.Context, percent float64, data []byte) bool {
	a := attemptOf(ctx)
	if a == nil {
		return false
	}
	a.mu.Lock()
	a.prog.dirty = true
	a.prog.percent = percent
	a.prog.data = data
	a.mu.Unlock()
	return true
}

// AppendLog adds a log line to the attempt running in ctx; it reports
// false outside an attempt. Beyond store.MaxLogLines unsent lines the
// oldest are dropped.
func AppendLog(ctx context.Context, text string) bool {
	a := attemptOf(ctx)
	if a == nil {
		return false
	}
	a.mu.Lock()
	a.prog.dirty = true
	a.prog.lines = store.AppendLog(a.prog.lines, []store.LogLine{{At: time.Now(), Text: text}})
	a.mu.Unlock()
	return true
}

// takeProgress returns the attempt's unsent report, or nil, and marks it
// sent.
func (a *attempt) takeProgress() *store.Progress {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.prog.dirty {
		return nil
	}
	p := &store.Progress{Percent: a.prog.percent, Data: a.prog.data, Log: a.prog.lines}
	a.prog.dirty, a.prog.lines = false, nil
	return p
}

// keepProgress puts back a report that could not be sent, before what was
// reported since.
func (a *attempt) keepProgress(p *store.Progress) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prog.dirty = true
	a.prog.lines = store.AppendLog(append(p.Log[:len(p.Log):len(p.Log)], a.prog.lines...), nil)
}

// hasProgress reports whether the attempt has a report to send.
func (a *attempt) hasProgress() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.prog.dirty
}

// flushProgress sends the unsent report of an attempt whose handler
// returned, before its outcome, in a renewal of its own lease.
func (r *worker) flushProgress(a *attempt) {
	if a.hasProgress() {
		r.extend(r.jobBase, []*attempt{a})
	}
}
