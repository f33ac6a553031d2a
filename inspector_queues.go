package hopper

import (
	"context"
	"time"

	"github.com/hopperq/hopper/store"
)

// GetQueueStats reports one queue: jobs per state, its config and the age of
// its oldest ready job. A queue the store never saw reports zeros.
func (i *Inspector) GetQueueStats(ctx context.Context, queue string) (QueueStats, error) {
	if err := i.made(); err != nil {
		return QueueStats{}, err
	}
	a, err := i.adminFor("queue stats")
	if err != nil {
		return QueueStats{}, err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return QueueStats{}, err
	}
	return a.GetQueueStats(ctx, queue)
}

// SetQueueConfig replaces a queue's settings, every field of them; every
// worker applies them at its next claim. A zero RatePeriod becomes one
// second; a negative field (but EventsMaxLen, where it turns events off),
// or a RatePeriod or GroupRatePeriod other than zero or one second without
// its RateLimit or GroupRateLimit, fails with an error wrapping
// ErrInvalidConfig. To change some settings
// and keep the others, use UpdateQueueConfig: SetQueueConfig after a
// GetQueueStats undoes what another operator changed in between.
func (i *Inspector) SetQueueConfig(ctx context.Context, queue string, cfg QueueConfig) error {
	if err := i.made(); err != nil {
		return err
	}
	a, err := i.adminFor("queue settings")
	if err != nil {
		return err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return err
	}
	cfg, err = cfg.NormalizeChange(QueueConfig{})
	if err != nil {
		return err
	}
	return a.SetQueueConfig(ctx, queue, cfg)
}

// PauseQueue stops every worker from claiming from queue until ResumeQueue; enqueues
// still work and running jobs finish. It changes nothing else of the
// queue's settings (UpdateQueueConfig).
func (i *Inspector) PauseQueue(ctx context.Context, queue string) error {
	if err := i.made(); err != nil {
		return err
	}
	return i.UpdateQueueConfig(ctx, queue, func(c *QueueConfig) error { c.Paused = true; return nil })
}

// ResumeQueue undoes PauseQueue; idle workers wake at once.
func (i *Inspector) ResumeQueue(ctx context.Context, queue string) error {
	if err := i.made(); err != nil {
		return err
	}
	return i.UpdateQueueConfig(ctx, queue, func(c *QueueConfig) error { c.Paused = false; return nil })
}

// GetThroughput reports attempts finished in queue from since until now,
// oldest first, one point per interval that had any: a minute for the last
// day, an hour (ThroughputPoint.Span) for the 30 days before. A zero since
// means the last hour. Both stores keep that much, bounded (see
// store.ThroughputMinutes).
func (i *Inspector) GetThroughput(ctx context.Context, queue string, since time.Time) ([]ThroughputPoint, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
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
