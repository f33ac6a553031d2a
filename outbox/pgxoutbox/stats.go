package pgxoutbox

import (
	"context"
	"fmt"
	"time"
)

// Stats is the state of an outbox table.
type Stats struct {
	// Depth is how many committed jobs wait for a relay (rows being
	// relayed included).
	Depth int64
	// Oldest is when the oldest waiting row was written; zero when none
	// waits.
	Oldest time.Time
	// Age is how long the oldest waiting row has waited, on the database's
	// clock: the relay lag. It counts from the row's INSERT, so a
	// transaction that stays open after writing adds to it. Zero when none
	// waits.
	Age time.Duration
	// Dead is how many rows the store refused, kept in the dead-letter
	// table.
	Dead int64
}

// Stats reads the outbox's depth, relay lag and dead letters. Depth and
// Dead count rows (a sequential scan of each table), which is cheap while
// the outbox is near empty, as it is while relays keep up.
func (r *Relay) Stats(ctx context.Context) (Stats, error) {
	n := r.ob.Names()
	var s Stats
	var oldest *time.Time
	var now time.Time
	err := r.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM `+n.Table+`),
		(SELECT created_at FROM `+n.Table+` ORDER BY seq LIMIT 1),
		(SELECT count(*) FROM `+n.Dead+`),
		clock_timestamp()`).Scan(&s.Depth, &oldest, &s.Dead, &now)
	if err != nil {
		return Stats{}, fmt.Errorf("pgxoutbox: stats: %w", noTable(err))
	}
	if oldest != nil {
		s.Oldest = *oldest
		s.Age = max(now.Sub(*oldest), 0)
	}
	return s, nil
}

// OutboxBacklog reports Stats as the dashboard asks for them
// (dashboard.Options.Outbox): depth, relay lag and dead letters.
func (r *Relay) OutboxBacklog(ctx context.Context) (depth int64, lag time.Duration, dead int64, err error) {
	s, err := r.Stats(ctx)
	return s.Depth, s.Age, s.Dead, err
}
