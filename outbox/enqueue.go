package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox/internal/execer"
)

// Execer runs a statement in the application's transaction. *sql.Tx
// satisfies it, with any PostgreSQL driver (pgx's stdlib, lib/pq...);
// pgxoutbox.Tx adapts a pgx.Tx. *sql.DB and *sql.Conn satisfy it too, but
// a job written outside a transaction is only as atomic as its statement.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Job is a job written to the outbox. Once the transaction commits, a
// relay stores it with this ID; if the transaction rolls back, it never
// existed.
type Job struct {
	// ID is the job's ID in the store, fixed when the row was written.
	ID string
	// Queue and Kind are the job's queue and kind.
	Queue, Kind string
	// RunAt is when the job falls due: a Delay is measured from the write
	// (on this process's clock). Zero means when the relay stores it.
	RunAt time.Time
}

// rowsPerInsert bounds one INSERT statement (4 parameters a row, well
// under PostgreSQL's 65,535).
const rowsPerInsert = 1000

// Enqueue writes one job into the outbox in tx: the job exists if and only
// if tx commits, and then a relay stores it within moments. args are
// encoded and opts resolved exactly as hopper.Enqueue does with the
// outbox's Client (the same defaults, checks and errors), except that the
// ID is fixed now (opts.ID, or a new one) and a Delay becomes a RunAt
// measured from now. A unique job (opts.Unique) is checked when the relay
// stores it, not here: a duplicate is then dropped by the store, as with
// hopper.Enqueue. When ctx carries a span, the job's trace starts in a
// PRODUCER span under it (see Config.Propagator). The returned Job tells
// the ID before commit.
//
// A nil or zero o, or a tx with nothing to run statements on (nil, a nil
// *sql.Tx, *sql.DB or *sql.Conn, pgxoutbox.Tx of a nil transaction), is
// refused before anything else with an error wrapping
// hopper.ErrInvalidConfig that says what was nil.
func Enqueue[T hopper.Args](ctx context.Context, o *Outbox, tx Execer, args T, opts *hopper.EnqueueOpts) (*Job, error) {
	if err := o.check(tx); err != nil {
		return nil, err
	}
	p, err := hopper.Prepare(o.client, args, opts)
	if err != nil {
		return nil, err
	}
	jobs, err := o.write(ctx, tx, []*hopper.PreparedJob{p})
	if err != nil {
		return nil, err
	}
	return jobs[0], nil
}

// EnqueueMany writes many jobs of one type with the same options into the
// outbox in tx, in one statement per 1,000 jobs, and returns them in the
// order of args. Each job gets an ID of its own (opts.ID is refused for
// more than one job). One invalid job fails the call before anything is
// written; a failed statement leaves tx to be rolled back. A nil or zero o
// or a nil tx is refused as by Enqueue, even with no args.
func EnqueueMany[T hopper.Args](ctx context.Context, o *Outbox, tx Execer, args []T, opts *hopper.EnqueueOpts) ([]*Job, error) {
	if err := o.check(tx); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, nil
	}
	ps, err := hopper.PrepareMany(o.client, args, opts)
	if err != nil {
		return nil, err
	}
	return o.write(ctx, tx, ps)
}

// errNilOutbox is the error of a function given a nil *Outbox, or a zero
// Outbox that New did not make.
var errNilOutbox = fmt.Errorf("%w: outbox: a nil or zero *Outbox (make one with outbox.New)", hopper.ErrInvalidConfig)

// passTx is what Enqueue and EnqueueMany want for tx.
const passTx = "pass the transaction to write the jobs in: a *sql.Tx from db.BeginTx, or pgxoutbox.Tx(tx) for a pgx.Tx"

// check refuses a nil or zero o and a tx with nothing to run statements on.
func (o *Outbox) check(tx Execer) error {
	if o == nil || o.client == nil {
		return errNilOutbox
	}
	return checkExecer("tx", tx, passTx)
}

// checkExecer returns an error wrapping hopper.ErrInvalidConfig when x,
// the parameter name, has nothing to run statements on: nil, a nil
// *sql.Tx, *sql.DB or *sql.Conn (a type switch, not reflect), or an
// adapter that says so (execer.Checker: pgxoutbox.Tx of a nil
// transaction). pass says what to pass instead.
func checkExecer(name string, x Execer, pass string) error {
	what := ""
	switch x := x.(type) {
	case nil:
		what = "nil"
	case *sql.Tx:
		if x == nil {
			what = "a nil *sql.Tx"
		}
	case *sql.DB:
		if x == nil {
			what = "a nil *sql.DB"
		}
	case *sql.Conn:
		if x == nil {
			what = "a nil *sql.Conn"
		}
	case execer.Checker:
		return x.CheckExecer()
	}
	if what == "" {
		return nil
	}
	return fmt.Errorf("%w: outbox: %s is %s (%s)", hopper.ErrInvalidConfig, name, what, pass)
}

// write adds trace context to the jobs, marshals them and inserts them.
func (o *Outbox) write(ctx context.Context, tx Execer, ps []*hopper.PreparedJob) ([]*Job, error) {
	spans := o.startSpans(ctx, ps)
	jobs := make([]*Job, len(ps))
	var err error
	for start := 0; start < len(ps) && err == nil; start += rowsPerInsert {
		chunk := ps[start:min(start+rowsPerInsert, len(ps))]
		args := make([]any, 0, 4*len(chunk))
		for _, p := range chunk {
			b, merr := p.MarshalBinary()
			if merr != nil {
				err = merr
				break
			}
			args = append(args, p.ID(), p.Queue(), p.Kind(), b)
		}
		if err != nil {
			break
		}
		q := o.insert1
		if len(chunk) > 1 {
			q = insertSQL(o.names.Table, len(chunk))
		}
		if _, err = tx.ExecContext(ctx, q, args...); err != nil {
			err = fmt.Errorf("outbox: write %d jobs: %w%s", len(chunk), err, noTableHint(err))
		}
	}
	endSpans(spans, err)
	if err != nil {
		return nil, err
	}
	for i, p := range ps {
		jobs[i] = &Job{ID: p.ID(), Queue: p.Queue(), Kind: p.Kind(), RunAt: p.RunAt()}
	}
	return jobs, nil
}

// insertSQL is the statement that inserts n rows.
func insertSQL(table string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (job_id, queue, kind, job) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		k := 4 * i
		b.WriteString("($" + strconv.Itoa(k+1) + ",$" + strconv.Itoa(k+2) + ",$" + strconv.Itoa(k+3) + ",$" + strconv.Itoa(k+4) + ")")
	}
	return b.String()
}

// noTableHint says how to create the outbox's tables when err is
// PostgreSQL's "relation does not exist" (SQLSTATE 42P01), as pgx's and
// lib/pq's errors tell it; else "".
func noTableHint(err error) string {
	var st interface{ SQLState() string }
	if errors.As(err, &st) && st.SQLState() == "42P01" {
		return " (create the outbox's tables with outbox.Migrate or hopper-outbox migrate)"
	}
	return ""
}
