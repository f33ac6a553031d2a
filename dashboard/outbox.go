package dashboard

import (
	"context"
	"time"
)

// OutboxSource reports the backlog of a transactional outbox (package
// outbox of github.com/hopperq/hopper/outbox; its pgxoutbox.Relay
// implements it), for the overview page and GET /api/stats. It is called
// once per overview and per live refresh, from many requests at once, so
// it must be safe for concurrent use; a call gets at most outboxTimeout.
type OutboxSource interface {
	// OutboxBacklog returns how many committed jobs wait in the outbox for
	// a relay, how long the oldest of them has waited (the relay lag; zero
	// when none waits) and how many rows the store refused (dead letters).
	OutboxBacklog(ctx context.Context) (depth int64, lag time.Duration, dead int64, err error)
}

// outboxTimeout bounds one OutboxBacklog call, so that a slow database
// holds up no page: the queues render, the outbox shows the error.
const outboxTimeout = 3 * time.Second

// outboxView is the outbox panel of the overview, and "outbox" in the JSON
// of /api/stats.
type outboxView struct {
	Depth int64  `json:"depth"`
	LagMS int64  `json:"lag_ms"`
	Lag   string `json:"lag"` // as the page writes it
	Dead  int64  `json:"dead"`
	Error string `json:"error,omitempty"`
}

// loadOutbox reads Config.Outbox; nil when none is set. A failure is
// logged and shown in the panel, never fatal to the page.
func (d *dash) loadOutbox(ctx context.Context) *outboxView {
	src := d.cfg.Outbox
	if src == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, outboxTimeout)
	defer cancel()
	depth, lag, dead, err := src.OutboxBacklog(ctx)
	if err != nil {
		d.cfg.Logger.Error("dashboard: reading the outbox failed", "error", err)
		return &outboxView{Error: err.Error()}
	}
	return &outboxView{Depth: depth, LagMS: lag.Milliseconds(), Lag: formatLatency(lag), Dead: dead}
}
