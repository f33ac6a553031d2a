package engine

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"time"

	"github.com/hopperq/hopper/store"
)

// maxRunningReported caps the running jobs listed in one heartbeat.
const maxRunningReported = 1000

// minBeatGap is the least time between two heartbeats when jobs keep
// starting: a job that starts is shown in the registry within about this,
// at the cost of one heartbeat a second while jobs start, instead of one
// per HeartbeatInterval.
const minBeatGap = time.Second

// heartbeatLoop records the worker in the store's registry until ctx is
// done, then removes it: every HeartbeatInterval, and sooner (no sooner
// than minBeatGap after the last) when a job started.
func (r *worker) heartbeatLoop(ctx context.Context) {
	t := time.NewTicker(r.cfg.HeartbeatInterval)
	defer t.Stop()
	early := time.NewTimer(0)
	early.Stop()
	var last time.Time
	for {
		select {
		case <-r.beat: // a start before this heartbeat is in it
		default:
		}
		r.heartbeat(ctx)
		last = time.Now()
		select {
		case <-r.beat:
			// A job started since: beat again at once, or once minBeatGap
			// has passed since the last.
			if wait := minBeatGap - time.Since(last); wait > 0 {
				early.Reset(wait)
				select {
				case <-early.C:
				case <-ctx.Done():
					r.removeRecord()
					return
				}
			}
			continue
		case <-ctx.Done():
			r.removeRecord()
			return
		case <-t.C:
		}
	}
}

// removeRecord takes the worker out of the store's registry, when a
// heartbeat put it there: a worker whose store was never reached stops
// without waiting on it (a heartbeat that failed ambiguously, a timeout,
// may have written a record, which expires after three intervals).
func (r *worker) removeRecord() {
	if !r.beaten.Load() {
		return
	}
	rm, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := r.st.RemoveWorker(rm, r.cfg.ID); err != nil {
		r.log.Warn("hopper: removing worker record failed", slog.Any("error", err))
	}
}

func (r *worker) heartbeat(ctx context.Context) {
	r.takeCommand(ctx)
	info := store.WorkerInfo{
		State:       r.state(),
		ID:          r.cfg.ID,
		Host:        r.host,
		PID:         os.Getpid(),
		Queues:      maps.Clone(r.cfg.Weights),
		Concurrency: r.cfg.Concurrency,
		StartedAt:   r.started,
		Processed:   r.processed.Load(),
		Failed:      r.failed.Load(),
	}
	for _, a := range r.snapshot() {
		if len(info.Running) == maxRunningReported {
			break
		}
		if started := a.startedAt(); !started.IsZero() && a.state.Load() == attemptRunning {
			info.Running = append(info.Running, store.RunningJob{Queue: a.rec.Queue, ID: a.rec.ID, Kind: a.rec.Kind, StartedAt: started})
		}
	}
	err := r.st.Heartbeat(ctx, info, 3*r.cfg.HeartbeatInterval)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		if log, omitted := r.beatOutage.Failed(time.Now()); log {
			r.log.Warn("hopper: worker heartbeat failed", slog.Any("error", err), slog.Int("failures_not_logged", omitted))
		}
	default:
		r.beaten.Store(true)
		if log, n, lasted := r.beatOutage.Recovered(time.Now()); log {
			r.log.Info("hopper: worker heartbeat works again", slog.Int("failures", n), slog.Duration("after", lasted))
		}
	}
}
