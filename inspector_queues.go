package hopper

import (
	"context"
	"time"

	"github.com/hopperq/hopper/store"
)

// GetQueueStats reports one queue: jobs per state, its config and the age of
// its oldest ready job. A queue the store never saw reports zeros.
func (i *Inspector) GetQueueStats(ctx context.Context, queue string) (QueueStats, error) {
	a, err := i.adminFor("queue stats")
	if err != nil {
		return QueueStats{}, err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return QueueStats{}, err
	}
	return a.GetQueueStats(ctx, queue)
}

// SetQueueConfig replaces a queue's settings; every worker applies them at
// its next claim. A zero RatePeriod becomes one second; a negative field
// (but EventsMaxLen, where it turns events off) fails with an error
// wrapping ErrInvalidConfig.
func (i *Inspector) SetQueueConfig(ctx context.Context, queue string, cfg QueueConfig) error {
	a, err := i.adminFor("queue settings")
	if err != nil {
		return err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return err
	}
	cfg, err = cfg.Normalize()
	if err != nil {
		return err
	}
	return a.SetQueueConfig(ctx, queue, cfg)
}

// PauseQueue stops every worker from claiming from queue until ResumeQueue; enqueues
// still work and running jobs finish. It keeps the queue's other settings.
func (i *Inspector) PauseQueue(ctx context.Context, queue string) error {
	return i.setPaused(ctx, queue, true)
}

// ResumeQueue undoes PauseQueue; idle workers wake at once.
func (i *Inspector) ResumeQueue(ctx context.Context, queue string) error {
	return i.setPaused(ctx, queue, false)
}

// setPaused changes the paused flag, keeping the rest of the config. Two
// operators changing one queue's settings at once may overwrite each
// other's change; the last write wins.
func (i *Inspector) setPaused(ctx context.Context, queue string, paused bool) error {
	st, err := i.GetQueueStats(ctx, queue)
	if err != nil {
		return err
	}
	st.Config.Paused = paused
	return i.SetQueueConfig(ctx, queue, st.Config)
}

// GetThroughput reports attempts finished in queue from since until now,
// oldest first, one point per interval that had any: a minute for the last
// day, an hour (ThroughputPoint.Span) for the 30 days before. A zero since
// means the last hour. Both stores keep that much, bounded (see
// store.ThroughputMinutes).
func (i *Inspector) GetThroughput(ctx context.Context, queue string, since time.Time) ([]ThroughputPoint, error) {
	a, err := i.adminFor("throughput")
	if err != nil {
		return nil, err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if since.IsZero() {
		since = time.Now().Add(-time.Hour)
	}
	return a.GetThroughput(ctx, queue, since)
}
