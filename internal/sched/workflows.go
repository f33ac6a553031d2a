package sched

import (
	"context"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/store"
)

// workflowBatch bounds one MaintainWorkflows call's work of each kind.
const workflowBatch = 500

// RunWorkflows runs the store's workflow duties (store.Workflows'
// MaintainWorkflows) until ctx is done: as often as the store asks, at
// most every maxSleep, backing off on errors.
func RunWorkflows(ctx context.Context, ws store.Workflows, maxSleep time.Duration, log *slog.Logger) {
	fails := 0
	var outage retrylog.Outage
	for ctx.Err() == nil {
		next, err := ws.MaintainWorkflows(ctx, workflowBatch)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			fails++
			next = min(maxSleep, time.Duration(1<<min(fails, 10))*10*time.Millisecond)
			if ok, omitted := outage.Failed(time.Now()); ok {
				log.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: workflow maintenance failed",
					slog.Any("error", err), slog.Duration("retry_in", next), slog.Int("failures_not_logged", omitted))
			}
		} else {
			fails = 0
			if ok, n, lasted := outage.Recovered(time.Now()); ok {
				log.LogAttrs(ctx, slog.LevelInfo, "hopper: scheduler: workflow maintenance works again",
					slog.Int("failures", n), slog.Duration("after", lasted))
			}
		}
		sleepCtx(ctx, min(max(next, 0), maxSleep))
	}
}
