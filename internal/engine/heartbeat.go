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

// heartbeatLoop records the worker in the store's registry until ctx is
// done, then removes it.
func (r *worker) heartbeatLoop(ctx context.Context) {
	t := time.NewTicker(r.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		r.heartbeat(ctx)
		select {
		case <-ctx.Done():
			rm, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := r.st.RemoveWorker(rm, r.cfg.ID); err != nil {
				r.log.Warn("hopper: removing worker record failed", slog.Any("error", err))
			}
			return
		case <-t.C:
		}
	}
}

func (r *worker) heartbeat(ctx context.Context) {
	info := store.WorkerInfo{
		ID:          r.cfg.ID,
		Host:        r.host,
		PID:         os.Getpid(),
		Queues:      maps.Clone(r.cfg.Weights),
		Concurrency: r.cfg.Concurrency,
		StartedAt:   r.started,
	}
	for _, a := range r.snapshot() {
		if len(info.Running) == maxRunningReported {
			break
		}
		if started := a.startedAt(); !started.IsZero() && a.state.Load() == attemptRunning {
			info.Running = append(info.Running, store.RunningJob{Queue: a.rec.Queue, ID: a.rec.ID, Kind: a.rec.Kind, StartedAt: started})
		}
	}
	if err := r.st.Heartbeat(ctx, info, 3*r.cfg.HeartbeatInterval); err != nil && ctx.Err() == nil {
		r.log.Warn("hopper: worker heartbeat failed", slog.Any("error", err))
	}
}
