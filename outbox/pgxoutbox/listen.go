package pgxoutbox

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// listen holds a connection of its own that LISTENs on the outbox's
// channel and signals wake for each notification, until ctx is done. After
// (re)connecting it signals once, for whatever was committed while it did
// not listen. A lost connection is logged and made again with backoff;
// meanwhile Run's poll keeps the relay going.
func (r *Relay) listen(ctx context.Context, wake chan<- struct{}) {
	var backoff time.Duration
	for ctx.Err() == nil {
		err := r.listenOnce(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		backoff = nextBackoff(backoff, r.cfg.MaxBackoff)
		r.cfg.Logger.Warn("pgxoutbox: LISTEN connection lost; polling until it is back",
			"channel", r.ob.Names().Channel, "retry_in", backoff, "error", err)
		sleep(ctx, backoff)
	}
}

func (r *Relay) listenOnce(ctx context.Context, wake chan<- struct{}) error {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.BatchTimeout)
	conn, err := pgx.ConnectConfig(cctx, r.pool.Config().ConnConfig.Copy())
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{r.ob.Names().Channel}.Sanitize()); err != nil {
		return err
	}
	signal(wake)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
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
