package pgxoutbox

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// listen holds a connection of its own that LISTENs on the outbox's
// channel and signals wake for each notification, until ctx is done. After
// (re)connecting it signals once, for whatever was committed while it did
// not listen (and so that a Run loop waiting out an outage tries at once).
// A lost connection is made again every ReconnectInterval while
// PostgreSQL is unreachable, with backoff after other failures; meanwhile
// Run's poll keeps the relay going.
func (r *Relay) listen(ctx context.Context, wake chan<- struct{}) {
	rt := &retrier{cfg: &r.cfg}
	for ctx.Err() == nil {
		err := r.listenOnce(ctx, wake, rt)
		if ctx.Err() != nil {
			return
		}
		wait, outage := rt.failed(err)
		switch {
		case !outage:
			r.cfg.Logger.Warn("pgxoutbox: LISTEN failed; polling until it is back",
				"channel", r.ob.Names().Channel, "retry_in", wait, "error", err)
		case rt.logOutage():
			r.cfg.Logger.Warn("pgxoutbox: LISTEN connection lost: PostgreSQL unreachable; reconnecting at a fixed interval",
				"channel", r.ob.Names().Channel, "retry_every", r.cfg.ReconnectInterval, "tries", rt.tries, "error", err)
		}
		sleep(ctx, wait, nil)
	}
}

func (r *Relay) listenOnce(ctx context.Context, wake chan<- struct{}, rt *retrier) error {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.BatchTimeout)
	conn, err := pgx.ConnectConfig(cctx, r.pool.Config().ConnConfig.Copy())
	cancel()
	if err != nil {
		return unreachable(err, nil)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{r.ob.Names().Channel}.Sanitize()); err != nil {
		return unreachable(err, conn.PgConn())
	}
	if down, tries := rt.ok(); tries > 0 {
		r.cfg.Logger.Info("pgxoutbox: LISTEN connection back", "channel", r.ob.Names().Channel, "down_for", down, "tries", tries)
	}
	signal(wake)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return unreachable(err, conn.PgConn())
		}
		signal(wake)
	}
}

// signal wakes the relay loop without blocking; wake-ups coalesce.
func signal(wake chan<- struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}
