package pgxoutbox

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hopperq/hopper/outbox"
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
func Tx(tx Execer) outbox.Execer { return txAdapter{tx} }

type txAdapter struct{ x Execer }

func (a txAdapter) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
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
