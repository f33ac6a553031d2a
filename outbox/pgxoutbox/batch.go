package pgxoutbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
)

// statements are the relay's SQL for one outbox.
type statements struct {
	lock, remove, bury, stall string
}

func newStatements(n outbox.Names, batchTimeout time.Duration) statements {
	return statements{
		stall: fmt.Sprintf("SET LOCAL idle_in_transaction_session_timeout = %d", (2 * batchTimeout).Milliseconds()),
		// It locks up to $1 rows and returns them in order, each with
		// whether the jobs before it come to less than $3 bytes (true for
		// the first one always) and then its job, or NULL past that: those
		// stay locked, unread, until the batch ends. A large job's TOAST
		// pointer is all the CTE keeps, and octet_length reads its size
		// from the header: an unread job is never fetched.
		lock: `WITH c AS (SELECT seq, job FROM ` + n.Table + ` WHERE seq <> ALL($2) ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED),
w AS (SELECT seq, job, sum(octet_length(job)) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) - octet_length(job) < $3 AS fits FROM c)
SELECT seq, fits, CASE WHEN fits THEN job END FROM w ORDER BY seq`,
		remove: `DELETE FROM ` + n.Table + ` WHERE seq = ANY($1)`,
		// A row is deleted only once the dead-letter table took it: one
		// whose seq is there already (the outbox's sequence restarted, by
		// TRUNCATE ... RESTART IDENTITY or a new table) stays.
		bury: `WITH i AS (INSERT INTO ` + n.Dead + ` (seq, job_id, queue, kind, job, created_at, error)
SELECT o.seq, o.job_id, o.queue, o.kind, o.job, o.created_at, e.error
FROM ` + n.Table + ` o JOIN unnest($1::bigint[], $2::text[]) AS e(seq, error) USING (seq)
ON CONFLICT (seq) DO NOTHING RETURNING seq)
DELETE FROM ` + n.Table + ` WHERE seq IN (SELECT seq FROM i) RETURNING seq`,
	}
}

// row is one locked outbox row and what became of it.
type row struct {
	seq int64
	job []byte
	p   *hopper.PreparedJob
}

// verdict is what one batch decided for its rows.
type verdict struct {
	remove   []int64  // stored (or duplicates): delete
	dead     []int64  // refused as invalid: move to the dead-letter table
	deadErrs []string // parallel to dead
	kept     int      // left in place: a newer format, or their queue failed
	storeErr error    // why rows were kept after a store failure
	failed   []int64  // kept after their queue's store call failed
	newer    []int64  // kept for a newer relay
	whole    bool     // the store call failed as a whole
}

func (v *verdict) bury(r *row, err error) {
	v.dead = append(v.dead, r.seq)
	v.deadErrs = append(v.deadErrs, err.Error())
}

// batch relays one batch in one transaction and returns how many rows it
// moved (to the store or the dead-letter table) and whether it locked a
// full batch and moved or passed over some of it, so that more rows may
// wait for the next. A failure rolls back and leaves
// every row in place.
func (r *Relay) batch(ctx context.Context) (moved int, more bool, err error) {
	// Locking the rows ends with ctx. Once jobs may have reached the store,
	// the batch is finished even if ctx ends, so that a shutdown leaves no
	// stored job's row behind (see BatchTimeout).
	lockCtx, cancelLock := context.WithTimeout(ctx, r.cfg.BatchTimeout)
	defer cancelLock()
	finCtx, cancelFin := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.BatchTimeout)
	defer cancelFin()
	conn, err := r.pool.Acquire(lockCtx)
	if err != nil {
		return 0, false, unreachable(fmt.Errorf("connect: %w", err), nil)
	}
	defer conn.Release()
	// A failure that broke the connection means PostgreSQL is unreachable
	// (see retrier), unless the batch ran out of time; the deferred
	// Rollback has run by then.
	defer func() {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the batch took longer than RelayConfig.BatchTimeout (%v): PostgreSQL or the store slow, or this process paused: %w", r.cfg.BatchTimeout, err)
		}
		err = unreachable(err, conn.Conn().PgConn())
	}()
	tx, err := conn.Begin(lockCtx)
	if err != nil {
		return 0, false, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(finCtx) //nolint:errcheck // a no-op after Commit
	// PostgreSQL ends the transaction, and frees its rows for the other
	// relays, when this relay stalls in it (a stopped process, a cut link
	// without a reset): the rows stayed locked until TCP gave up, hours
	// later, and the other relays passed over them. A live relay is idle
	// in it at most BatchTimeout, while it stores the jobs.
	if _, err := tx.Exec(lockCtx, r.sql.stall); err != nil {
		return 0, false, fmt.Errorf("set the stall timeout: %w", err)
	}
	rows, locked, err := r.lock(lockCtx, tx)
	if err != nil || len(rows) == 0 {
		return 0, false, err
	}
	ctx = finCtx
	v := r.store(ctx, rows)
	fail := func(err error) (int, bool, error) {
		switch {
		case len(v.remove) > 0:
			err = &storedError{stored: len(v.remove), err: err}
		case v.storeErr != nil:
			// What the store said goes with it: that its jobs may be
			// stored, when its reply was lost.
			err = fmt.Errorf("%w; before it, the store call of %d jobs failed: %v", err, v.kept, v.storeErr)
		}
		return 0, false, err
	}
	if len(v.remove) > 0 {
		if _, err := tx.Exec(ctx, r.sql.remove, v.remove); err != nil {
			return fail(fmt.Errorf("delete relayed rows: %w", err))
		}
	}
	var stuck []int64 // refused rows the dead-letter table could not take
	if len(v.dead) > 0 {
		buried, err := r.bury(ctx, tx, v)
		if err != nil {
			return fail(fmt.Errorf("move refused rows to %s: %w", r.ob.Names().Dead, err))
		}
		if len(buried) < len(v.dead) {
			var kept []int64
			var errs []string
			for i, seq := range v.dead {
				if buried[seq] {
					kept, errs = append(kept, seq), append(errs, v.deadErrs[i])
				} else {
					stuck = append(stuck, seq)
				}
			}
			v.dead, v.deadErrs = kept, errs
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	r.met.relayed(ctx, len(v.remove), len(v.dead))
	for i, seq := range v.dead {
		r.cfg.Logger.Error("pgxoutbox: the store refused a job; its row moved to the dead-letter table",
			"table", r.ob.Names().Dead, "seq", seq, "error", v.deadErrs[i])
	}
	// The rows kept are passed over for a while, so that the next batches
	// take the rows behind them.
	now := time.Now()
	newer := r.held.hold(v.newer, now.Add(newerHold))
	for _, seq := range newer {
		r.cfg.Logger.Warn("pgxoutbox: row in a newer format left for a newer relay (this one passes over it for a minute)",
			"table", r.ob.Names().Channel, "seq", seq)
	}
	held := len(newer)
	for _, seq := range r.held.hold(stuck, now.Add(newerHold)) {
		r.cfg.Logger.Error("pgxoutbox: the store refused a job, and the dead-letter table already holds a row of its seq (the outbox's sequence restarted); the row stays in the outbox: move the dead row away",
			"table", r.ob.Names().Channel, "seq", seq)
		held++
	}
	moved = len(v.remove) + len(v.dead)
	if v.whole {
		// The store failed as a whole (unreachable, most likely): back off.
		return moved, false, fmt.Errorf("%d of %d jobs not stored: %w", v.kept, len(rows), v.storeErr)
	}
	if len(v.failed) > 0 {
		// Some queues failed: their rows wait MaxBackoff while the next
		// batches take the rows behind them, other queues' among them.
		held += len(r.held.hold(v.failed, now.Add(r.cfg.MaxBackoff)))
		r.cfg.Logger.Warn("pgxoutbox: jobs of a failing queue not stored; their rows are tried again later, the rows behind them go on",
			"table", r.ob.Names().Channel, "not_stored", len(v.failed), "stored", len(v.remove), "retry_in", r.cfg.MaxBackoff, "error", v.storeErr)
	}
	// More may wait behind a full batch, or one that BatchBytes cut; the
	// next one finds other rows when this one moved or passed over some.
	full := locked == r.cfg.BatchSize || len(rows) < locked
	return moved, full && (moved > 0 || held > 0), nil
}

// bury moves v's refused rows to the dead-letter table and returns those
// it moved.
func (r *Relay) bury(ctx context.Context, tx pgx.Tx, v *verdict) (map[int64]bool, error) {
	qr, err := tx.Query(ctx, r.sql.bury, v.dead, v.deadErrs)
	if err != nil {
		return nil, err
	}
	defer qr.Close()
	out := make(map[int64]bool, len(v.dead))
	for qr.Next() {
		var seq int64
		if err := qr.Scan(&seq); err != nil {
			return nil, err
		}
		out[seq] = true
	}
	return out, qr.Err()
}

// lock locks the next rows and reads those of the batch (BatchBytes may
// leave some locked and unread), and returns them with how many it
// locked.
func (r *Relay) lock(ctx context.Context, tx pgx.Tx) ([]*row, int, error) {
	qr, err := tx.Query(ctx, r.sql.lock, r.cfg.BatchSize, r.held.skip(time.Now()), r.cfg.BatchBytes)
	if err != nil {
		return nil, 0, fmt.Errorf("lock rows: %w", noTable(err))
	}
	var rows []*row
	locked := 0
	for qr.Next() {
		x := new(row)
		var fits bool
		if err := qr.Scan(&x.seq, &fits, &x.job); err != nil {
			qr.Close()
			return nil, 0, fmt.Errorf("read rows: %w", err)
		}
		locked++
		if fits && len(rows) == locked-1 {
			rows = append(rows, x)
		}
	}
	if err := qr.Err(); err != nil {
		return nil, 0, fmt.Errorf("lock rows: %w", noTable(err))
	}
	return rows, locked, nil
}

// store decodes the rows and stores their jobs in one call, deciding each
// row's fate.
func (r *Relay) store(ctx context.Context, rows []*row) *verdict {
	v := new(verdict)
	var ok []*row
	for _, x := range rows {
		p := new(hopper.PreparedJob)
		err := p.UnmarshalBinary(x.job)
		if err == nil {
			err = p.Validate()
		}
		switch {
		case errors.Is(err, hopper.ErrNotSupported):
			v.kept++ // a newer relay reads it
			v.newer = append(v.newer, x.seq)
		case err != nil:
			v.bury(x, err)
		default:
			x.p = p
			ok = append(ok, x)
		}
	}
	if len(ok) == 0 {
		return v
	}
	jobs := make([]*hopper.PreparedJob, len(ok))
	for i, x := range ok {
		jobs[i] = x.p
	}
	infos, err := hopper.EnqueuePrepared(ctx, r.ob.Client(), jobs)
	switch {
	case infos == nil && invalid(err):
		// The store refused the batch for one job: find it, one by one.
		r.storeOneByOne(ctx, ok, v)
	case infos == nil:
		// The whole call failed (the store unreachable): the batch backs
		// off, its rows not passed over.
		v.kept += len(ok)
		v.storeErr = err
		v.whole = true
	default:
		for i, x := range ok {
			if e := infos[i].Err; e != nil {
				v.kept++
				v.storeErr = e
				v.failed = append(v.failed, x.seq)
				continue
			}
			v.remove = append(v.remove, x.seq)
		}
	}
	return v
}

// storeOneByOne stores each job on its own, burying those the store
// refuses as invalid.
func (r *Relay) storeOneByOne(ctx context.Context, rows []*row, v *verdict) {
	for _, x := range rows {
		infos, err := hopper.EnqueuePrepared(ctx, r.ob.Client(), []*hopper.PreparedJob{x.p})
		switch {
		case err == nil:
			v.remove = append(v.remove, x.seq)
		case infos == nil && invalid(err):
			v.bury(x, err)
		default:
			v.kept++
			v.storeErr = err
			v.failed = append(v.failed, x.seq)
		}
	}
}

// invalid reports whether a store error refuses a job for what it is
// rather than for the store's state.
func invalid(err error) bool {
	return errors.Is(err, hopper.ErrInvalidJob) || errors.Is(err, hopper.ErrInvalidQueue)
}
