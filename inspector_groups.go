package hopper

import (
	"context"

	"github.com/hopperq/hopper/store"
)

// GroupStats is store.GroupStats.
type GroupStats = store.GroupStats

// SetGroupLimit gives group of queue a cap of its own on running jobs,
// overriding QueueConfig.GroupMaxRunning (a premium tenant allowed 5 where
// the rest get 1, say); limit 0 removes it. Every worker follows it from
// its next claim. A negative limit, an invalid group, or more than 10,000
// groups with caps of their own in one queue fails with an error wrapping
// ErrInvalidConfig; a store without groups, ErrNotSupported. Safe for
// concurrent use.
func (i *Inspector) SetGroupLimit(ctx context.Context, queue, group string, limit int) error {
	if err := i.made(); err != nil {
		return err
	}
	g, err := optional[store.Groups](i.st, "a group's cap", "store.Groups")
	if err != nil {
		return err
	}
	return g.SetGroupLimit(ctx, queue, group, limit)
}

// ListGroups lists the groups of queue that have ready or running jobs, a
// cap of their own or a hold in force (GroupStats.HeldUntil), sorted by name, at most limit of them (all when limit
// is zero or less). Its cost grows with the queue's groups.
func (i *Inspector) ListGroups(ctx context.Context, queue string, limit int) ([]GroupStats, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	g, err := optional[store.Groups](i.st, "listing groups", "store.Groups")
	if err != nil {
		return nil, err
	}
	return g.ListGroups(ctx, queue, limit)
}
