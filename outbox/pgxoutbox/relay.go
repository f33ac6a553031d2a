package pgxoutbox

import (
	"context"
	"errors"
	"math/rand/v2"
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
// runs a second time, as a job does when its worker dies; give jobs a
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

	running atomic.Bool
}

// NewRelay returns a relay that moves the jobs of ob's table in pool's
// database into ob's Client's store. A nil cfg means defaults. It panics if
// pool or ob is nil or cfg is invalid (with the error of
// RelayConfig.Validate). It starts nothing: call Run, or pass Run to
// hopper.WorkerConfig.Services to run the relay inside a Worker:
//
//	relay := pgxoutbox.NewRelay(pool, ob, nil)
//	w := hopper.NewWorker(store, &hopper.WorkerConfig{
//		Services: []func(context.Context) error{relay.Run},
//	})
func NewRelay(pool *pgxpool.Pool, ob *outbox.Outbox, cfg *RelayConfig) *Relay {
	if pool == nil || ob == nil {
		panic("pgxoutbox: NewRelay with a nil pool or Outbox")
	}
	var c RelayConfig
	if cfg != nil {
		c = *cfg
	}
	c, err := c.withDefaults()
	if err != nil {
		panic(err)
	}
	r := &Relay{pool: pool, ob: ob, cfg: c, sql: newStatements(ob.Names())}
	r.met = newMetrics(c.MeterProvider, ob.Names().Channel)
	return r
}

// errRunning is returned by Run while another Run of the same relay runs.
var errRunning = errors.New("pgxoutbox: Relay.Run called while already running")

// Run relays until ctx is done, then finishes the batch under way and
// returns nil. Failures do not stop it: they are logged and retried with
// backoff, the rows left in place. It returns an error only when the
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
	var backoff time.Duration
	for ctx.Err() == nil {
		n, more, err := r.batch(ctx)
		if err != nil {
			backoff = nextBackoff(backoff, r.cfg.MaxBackoff)
			r.cfg.Logger.Warn("pgxoutbox: relay batch failed; rows left in place", "table", r.ob.Names().Channel, "retry_in", backoff, "error", err)
			sleep(ctx, backoff)
			continue
		}
		backoff = 0
		if more && n > 0 {
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
		if err != nil || !more || n == 0 {
			return total, err
		}
	}
}

// nextBackoff doubles the wait from 50 ms up to limit, with ±25% jitter.
func nextBackoff(prev, limit time.Duration) time.Duration {
	d := min(max(2*prev, 50*time.Millisecond), limit)
	return d - d/4 + rand.N(d/2+1)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
