package pgxoutbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
)

// statements are the relay's SQL for one outbox.
type statements struct {
	lock, remove, bury string
}

func newStatements(n outbox.Names) statements {
	return statements{
		lock:   `SELECT seq, job FROM ` + n.Table + ` ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
		remove: `DELETE FROM ` + n.Table + ` WHERE seq = ANY($1)`,
		bury: `WITH d AS (DELETE FROM ` + n.Table + ` WHERE seq = ANY($1) RETURNING seq, job_id, queue, kind, job, created_at)
INSERT INTO ` + n.Dead + ` (seq, job_id, queue, kind, job, created_at, error)
SELECT d.seq, d.job_id, d.queue, d.kind, d.job, d.created_at, e.error
FROM d JOIN unnest($1::bigint[], $2::text[]) AS e(seq, error) USING (seq)
ON CONFLICT (seq) DO NOTHING`,
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
}

func (v *verdict) bury(r *row, err error) {
	v.dead = append(v.dead, r.seq)
	v.deadErrs = append(v.deadErrs, err.Error())
}

// batch relays one batch in one transaction and returns how many rows it
// moved (to the store or the dead-letter table) and whether it locked a
// full batch, so that more rows may wait. A failure rolls back and leaves
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
	// (see retrier); the deferred Rollback has run by then.
	defer func() { err = unreachable(err, conn.Conn().PgConn()) }()
	tx, err := conn.Begin(lockCtx)
	if err != nil {
		return 0, false, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(finCtx) //nolint:errcheck // a no-op after Commit
	rows, err := r.lock(lockCtx, tx)
	if err != nil || len(rows) == 0 {
		return 0, false, err
	}
	ctx = finCtx
	v := r.store(ctx, rows)
	fail := func(err error) (int, bool, error) {
		if len(v.remove) > 0 {
			err = &storedError{stored: len(v.remove), err: err}
		}
		return 0, false, err
	}
	if len(v.remove) > 0 {
		if _, err := tx.Exec(ctx, r.sql.remove, v.remove); err != nil {
			return fail(fmt.Errorf("delete relayed rows: %w", err))
		}
	}
	if len(v.dead) > 0 {
		if _, err := tx.Exec(ctx, r.sql.bury, v.dead, v.deadErrs); err != nil {
			return fail(fmt.Errorf("move refused rows to %s: %w", r.ob.Names().Dead, err))
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
	moved = len(v.remove) + len(v.dead)
	if v.storeErr != nil {
		// Some queues failed: back off before trying their rows again.
		return moved, false, fmt.Errorf("%d of %d jobs not stored: %w", v.kept, len(rows), v.storeErr)
	}
	return moved, len(rows) == r.cfg.BatchSize, nil
}

// lock selects and locks the next rows and decodes their jobs.
func (r *Relay) lock(ctx context.Context, tx pgx.Tx) ([]*row, error) {
	qr, err := tx.Query(ctx, r.sql.lock, r.cfg.BatchSize)
	if err != nil {
		return nil, fmt.Errorf("lock rows: %w", err)
	}
	var rows []*row
	for qr.Next() {
		x := new(row)
		if err := qr.Scan(&x.seq, &x.job); err != nil {
			qr.Close()
			return nil, fmt.Errorf("read rows: %w", err)
		}
		rows = append(rows, x)
	}
	if err := qr.Err(); err != nil {
		return nil, fmt.Errorf("lock rows: %w", err)
	}
	return rows, nil
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
			r.cfg.Logger.Warn("pgxoutbox: row in a newer format left for a newer relay", "seq", x.seq, "error", err)
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
		v.kept += len(ok)
		v.storeErr = err
	default:
		for i, x := range ok {
			if e := infos[i].Err; e != nil {
				v.kept++
				v.storeErr = e
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
		}
	}
}

// invalid reports whether a store error refuses a job for what it is
// rather than for the store's state.
func invalid(err error) bool {
	return errors.Is(err, hopper.ErrInvalidJob) || errors.Is(err, hopper.ErrInvalidQueue)
}
