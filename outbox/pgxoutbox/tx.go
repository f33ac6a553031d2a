package pgxoutbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/internal/execer"
)

// Execer is what Tx adapts: pgx.Tx, *pgx.Conn and *pgxpool.Pool all have
// this method.
type Execer interface {
	Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error)
}

// Tx adapts a pgx transaction to outbox.Execer, so that the outbox writes
// its jobs in it:
//
//	tx, err := pool.Begin(ctx)
//	...
//	job, err := outbox.Enqueue(ctx, ob, pgxoutbox.Tx(tx), SendEmail{To: to}, nil)
//	...
//	err = tx.Commit(ctx)
//
// It also adapts a *pgx.Conn or a *pgxpool.Pool (for outbox.Migrate, say).
// The adapter is as safe for concurrent use as what it wraps.
//
// Tx of nil, or of a nil *pgxpool.Tx, *pgxpool.Pool, *pgxpool.Conn or
// *pgx.Conn, returns an adapter that runs nothing: outbox.Enqueue,
// EnqueueMany and Migrate refuse it, and its ExecContext fails, with an
// error wrapping hopper.ErrInvalidConfig that says what was nil.
func Tx(tx Execer) outbox.Execer { return txAdapter{x: tx, err: checkNil(tx)} }

type txAdapter struct {
	x   Execer
	err error // not nil when x has nothing to run statements on
}

var _ execer.Checker = txAdapter{}

// CheckExecer reports a nil transaction (execer.Checker).
func (a txAdapter) CheckExecer() error { return a.err }

func (a txAdapter) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if a.err != nil {
		return nil, a.err
	}
	tag, err := a.x.Exec(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return result(tag.RowsAffected()), nil
}

// result is the sql.Result of a pgx command tag.
type result int64

func (r result) RowsAffected() (int64, error) { return int64(r), nil }

func (result) LastInsertId() (int64, error) {
	return 0, errors.New("pgxoutbox: LastInsertId is not supported by PostgreSQL")
}

// checkNil returns an error wrapping hopper.ErrInvalidConfig when x is nil
// or a nil pointer of one of pgx's types (a type switch, not reflect: a
// nil pgx.Tx from conn.Begin is a nil interface), else nil.
func checkNil(x Execer) error {
	what, pass := "", ""
	switch x := x.(type) {
	case nil:
		what, pass = "nil", "pass the pgx.Tx to write in, from pool.Begin, or a *pgxpool.Pool or *pgx.Conn"
	case *pgxpool.Tx:
		if x == nil {
			what, pass = "a nil *pgxpool.Tx", "begin one with pool.Begin"
		}
	case *pgxpool.Pool:
		if x == nil {
			what, pass = "a nil *pgxpool.Pool", "make one with pgxpool.New"
		}
	case *pgxpool.Conn:
		if x == nil {
			what, pass = "a nil *pgxpool.Conn", "acquire one with pool.Acquire"
		}
	case *pgx.Conn:
		if x == nil {
			what, pass = "a nil *pgx.Conn", "open one with pgx.Connect"
		}
	}
	if what == "" {
		return nil
	}
	return fmt.Errorf("%w: pgxoutbox: Tx of %s (%s)", hopper.ErrInvalidConfig, what, pass)
}
