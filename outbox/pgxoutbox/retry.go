package pgxoutbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// outageLogEvery is how often a relay loop repeats its warning while
// PostgreSQL stays unreachable.
const outageLogEvery = 10 * time.Second

// errUnreachable marks a failure that came from not reaching PostgreSQL:
// a connection that could not be opened (refused, timed out, the server
// starting up, in crash recovery or shutting down) or one that broke.
var errUnreachable = errors.New("PostgreSQL unreachable")

// unreachable wraps err with errUnreachable when it is such a failure:
// conn is the connection it happened on (closed if it broke), or nil for
// a failure to open one.
//
// A connection that broke on the batch's own deadline (BatchTimeout), or
// that PostgreSQL closed because this relay left its transaction idle too
// long (SQLSTATE 25P03), says the batch or this process was slow, not
// that PostgreSQL is down: such a failure is backed off, and logged as
// what it is.
func unreachable(err error, conn *pgconn.PgConn) error {
	if err == nil || errors.Is(err, errUnreachable) || errors.Is(err, context.Canceled) {
		return err // a cancelled call closes its connection too
	}
	if conn == nil && connectFailed(err) {
		return fmt.Errorf("%w: %w", errUnreachable, err)
	}
	var pe *pgconn.PgError
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &pe) && pe.Code == "25P03" {
		return err
	}
	if conn != nil && conn.IsClosed() {
		return fmt.Errorf("%w: %w", errUnreachable, err)
	}
	return err
}

// connectFailed reports whether err failed to open a connection because
// the server could not be reached or does not accept connections yet (or
// any more). A server that answers with another refusal (authentication,
// an unknown database, too many connections) is up: those errors persist
// and are backed off.
func connectFailed(err error) bool {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return false
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return true // the network: refused, reset, timed out
	}
	switch pe.Code {
	case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
		return true
	}
	return pe.Code[:2] == "08" // connection_exception
}

// retrier decides how long a relay loop waits after a failure: the
// short ReconnectInterval while PostgreSQL is unreachable, so that the
// loop resumes as soon as it is back, or a backoff that doubles up to
// MaxBackoff for failures that persist while it is up (a store down, a
// broken table), so that those do not spin. It keeps the log to one
// warning per outage (repeated every outageLogEvery) and an info when it
// ends. A retrier is used by one goroutine.
type retrier struct {
	cfg     *RelayConfig
	backoff time.Duration
	down    time.Time // when the current outage began; zero when none
	tries   int       // failed tries in the current outage
	logged  time.Time // when the outage was last logged
}

// failed records err and returns how long to wait before the next try,
// and whether it is an outage (a wait that a sign of PostgreSQL being
// back may cut short).
func (r *retrier) failed(err error) (wait time.Duration, outage bool) {
	if !errors.Is(err, errUnreachable) {
		r.backoff = nextBackoff(r.backoff, r.cfg.MaxBackoff)
		return r.backoff, false
	}
	now := time.Now()
	if r.down.IsZero() {
		r.down = now
	}
	r.tries++
	return jitter(r.cfg.ReconnectInterval), true
}

// logOutage reports whether the outage under way is due a warning (its
// first failure, then every outageLogEvery), and marks it logged.
func (r *retrier) logOutage() bool {
	if now := time.Now(); now.Sub(r.logged) >= outageLogEvery || r.tries == 1 {
		r.logged = now
		return true
	}
	return false
}

// ok records a success: the backoff starts over, and an outage ends; it
// returns how long the outage lasted and how many tries failed in it
// (zero when there was none).
func (r *retrier) ok() (down time.Duration, tries int) {
	r.backoff = 0
	if r.down.IsZero() {
		return 0, 0
	}
	down, tries = time.Since(r.down), r.tries
	r.down, r.tries, r.logged = time.Time{}, 0, time.Time{}
	return down, tries
}

// nextBackoff doubles the wait from 50 ms up to limit, with ±25% jitter,
// and never past limit.
func nextBackoff(prev, limit time.Duration) time.Duration {
	return min(jitter(min(max(2*prev, 50*time.Millisecond), limit)), limit)
}

// jitter returns d ±25%.
func jitter(d time.Duration) time.Duration {
	return d - d/4 + rand.N(d/2+1)
}

// sleep waits d, or until ctx is done or (when wake is not nil) a wake-up
// comes.
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-wake:
	}
}

// noTable adds to err, when PostgreSQL says the outbox's table does not
// exist (SQLSTATE 42P01), how to create it.
func noTable(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" {
		return fmt.Errorf("%w (create the outbox's tables with outbox.Migrate or hopper-outbox migrate)", err)
	}
	return err
}
