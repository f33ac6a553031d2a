package pgxoutbox

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hopperq/hopper/outbox"
)

// Relay moves committed jobs from an outbox table into the store of the
// Outbox's Client. Each batch is one PostgreSQL transaction: it locks up to
// BatchSize rows in order (FOR UPDATE SKIP LOCKED, so that any number of
// relays, in any number of processes, share the work without waiting on
// each other), stores their jobs with their fixed IDs in one Store call
// (hopper.EnqueuePrepared, through the client's middleware),
// deletes their rows and commits.
//
// If a relay dies after the store call and before its commit, the rows
// stay and another batch stores them again: the store reports each job
// still there as a duplicate of itself and adds nothing. A job that
// already finished and left the store in that window is added again and
// runs again, as a job does when its worker dies (and once more for each
// further relay that dies in the same window of the same rows); give jobs a
// Retention (hopper.EnqueueOpts.Retention) longer than a relay takes to
// come back, and the finished job keeps its ID held, so even that is a
// duplicate.
//
// Rows the store refuses as invalid (hopper.ErrInvalidJob or
// ErrInvalidQueue: a row written by other software, limits changed since)
// are moved, with the error, to the dead-letter table (Names.Dead) in the
// same transaction and logged: they never block the outbox and are not
// lost; Stats counts them. When the store fails (unreachable, a shard
// down), the rows stay and the relay backs off. A row in a newer format
// than this hopper reads is left for a newer relay.
//
// When PostgreSQL goes away (a crash, a restart, the network) the relay
// logs a warning (and one for its LISTEN connection), and its batches and
// its LISTEN connection try again every RelayConfig.ReconnectInterval
// (25 ms) rather than with a growing backoff; transactions cannot commit meanwhile, and those
// committed before stay in the outbox. Within about that interval of
// PostgreSQL accepting connections again, the relay listens again, moves
// the rows committed while it waited in its next batches, and logs an
// info with how long it was down; from then on jobs reach the store
// within milliseconds of their commit, as before. A batch that had stored
// its jobs when PostgreSQL went away leaves their rows behind (see
// above): its warning says so, with the count, and the next batch stores
// those jobs again under the same IDs. A healthy relay pays nothing for
// this: the short interval applies only after a connection failed.
//
// A relay waits on LISTEN for the notification the outbox's trigger sends
// when a transaction that wrote rows commits, and looks every PollInterval
// in case a notification was missed. Its LISTEN connection is its own, not
// the pool's; the pool must reach PostgreSQL directly or through a pooler
// in session mode (LISTEN does not work through transaction pooling).
//
// A Relay is safe for concurrent use; Run runs once at a time, Flush and
// Stats at any time.
type Relay struct {
	pool *pgxpool.Pool
	ob   *outbox.Outbox
	cfg  RelayConfig
	sql  statements
	met  *metrics
	held heldRows // rows kept in place, passed over for a while

	running atomic.Bool
}

// NewRelay returns a relay that moves the jobs of ob's table in pool's
// database into ob's Client's store. A nil cfg means defaults. It panics if
// pool is nil, ob is nil or a zero Outbox (one outbox.New did not make) or
// cfg is invalid (with the error of RelayConfig.Validate), since these are
// programming errors. It starts nothing: call Run, or pass Run to
// hopper.WorkerConfig.Services to run the relay inside a Worker:
//
//	relay := pgxoutbox.NewRelay(pool, ob, nil)
//	w := hopper.NewWorker(store, &hopper.WorkerConfig{
//		Services: []func(context.Context) error{relay.Run},
//	})
func NewRelay(pool *pgxpool.Pool, ob *outbox.Outbox, cfg *RelayConfig) *Relay {
	if pool == nil {
		panic("pgxoutbox: NewRelay with a nil *pgxpool.Pool (make one with pgxpool.New)")
	}
	if ob == nil || ob.Client() == nil {
		panic("pgxoutbox: NewRelay with a nil or zero *outbox.Outbox (make one with outbox.New)")
	}
	var c RelayConfig
	if cfg != nil {
		c = *cfg
	}
	c, err := c.withDefaults()
	if err != nil {
		panic(err)
	}
	r := &Relay{pool: pool, ob: ob, cfg: c, sql: newStatements(ob.Names(), c.BatchTimeout)}
	r.met = newMetrics(c.MeterProvider, ob.Names().Channel)
	return r
}

// errRunning is returned by Run while another Run of the same relay runs.
var errRunning = errors.New("pgxoutbox: Relay.Run called while already running")

// Run relays until ctx is done, then finishes the batch under way and
// returns nil. Failures do not stop it: they are logged and retried, the
// rows left in place: every ReconnectInterval while PostgreSQL is
// unreachable, with a backoff up to MaxBackoff otherwise. It returns an error only when the
// relay already runs. Run any number of relays at once, in one process or
// many: they share the rows.
func (r *Relay) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return errRunning
	}
	defer r.running.Store(false)
	unregister := r.met.observe(r)
	defer unregister()

	wake := make(chan struct{}, 1)
	var wg sync.WaitGroup
	lctx, stopListen := context.WithCancel(ctx)
	wg.Go(func() { r.listen(lctx, wake) })
	defer func() {
		stopListen()
		wg.Wait()
	}()

	poll := time.NewTimer(r.cfg.PollInterval)
	defer poll.Stop()
	rt := &retrier{cfg: &r.cfg}
	for ctx.Err() == nil {
		_, more, err := r.batch(ctx)
		if err != nil {
			wait, outage := rt.failed(err)
			r.logFailure(err, wait, outage, rt)
			if outage {
				// The listener's reconnection is the first sign that
				// PostgreSQL is back: it cuts the wait short.
				sleep(ctx, wait, wake)
			} else {
				sleep(ctx, wait, nil)
			}
			continue
		}
		if down, tries := rt.ok(); tries > 0 {
			r.cfg.Logger.Info("pgxoutbox: PostgreSQL reachable again; relay resumed",
				"table", r.ob.Names().Channel, "down_for", down, "tries", tries)
		}
		if more {
			continue
		}
		poll.Reset(r.cfg.PollInterval)
		select {
		case <-ctx.Done():
		case <-wake:
		case <-poll.C:
		}
	}
	return nil
}

// Flush relays batches until no committed row is left (rows other relays
// hold locked are not waited for) and returns how many rows it moved to the
// store or the dead-letter table. It returns the first failure. Tests and
// scripts use it; Run does the same continuously.
func (r *Relay) Flush(ctx context.Context) (int, error) {
	total := 0
	for {
		n, more, err := r.batch(ctx)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// logFailure logs a failed batch: always when its jobs were already
// stored (the duplicates that may follow need the explanation), once per
// outage while PostgreSQL is unreachable, and each time otherwise.
func (r *Relay) logFailure(err error, wait time.Duration, outage bool, rt *retrier) {
	table := r.ob.Names().Channel // the table's name, unquoted
	var se *storedError
	switch {
	case errors.As(err, &se):
		r.cfg.Logger.Warn(storedWarning, "table", table, "stored", se.stored, "retry_in", wait, "error", err)
		if outage {
			rt.logOutage() // this warning says it all for the outage's start
		}
	case outage && rt.logOutage():
		r.cfg.Logger.Warn("pgxoutbox: PostgreSQL unreachable; committed rows wait in the outbox, and the relay tries again at a fixed interval until it is back",
			"table", table, "retry_every", r.cfg.ReconnectInterval, "down_for", time.Since(rt.down), "tries", rt.tries, "error", err)
	case !outage:
		r.cfg.Logger.Warn("pgxoutbox: relay batch failed; rows left in place", "table", table, "retry_in", wait, "error", err)
	}
}
