package pgxoutbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestTxOfNil adapts a nil transaction, pool or connection: Enqueue,
// EnqueueMany, Migrate and the adapter's ExecContext fail with an error
// wrapping hopper.ErrInvalidConfig that names it (each was a nil
// dereference). No database is needed: nothing runs.
func TestTxOfNil(t *testing.T) {
	ctx := context.Background()
	ob := outbox.New(hopper.NewClient(memstore.New(nil), nil), nil)
	var (
		tx     pgx.Tx // what pool.Begin returns: nil is a nil interface
		ptx    *pgxpool.Tx
		pool   *pgxpool.Pool
		pconn  *pgxpool.Conn
		conn   *pgx.Conn
		nilAny pgxoutbox.Execer
	)
	for _, c := range []struct {
		name string
		x    outbox.Execer
		want string
	}{
		{"nil pgx.Tx", pgxoutbox.Tx(tx), "pgxoutbox: Tx of nil (pass the pgx.Tx"},
		{"nil Execer", pgxoutbox.Tx(nilAny), "pgxoutbox: Tx of nil (pass the pgx.Tx"},
		{"nil *pgxpool.Tx", pgxoutbox.Tx(ptx), "pgxoutbox: Tx of a nil *pgxpool.Tx (begin one with pool.Begin)"},
		{"nil *pgxpool.Pool", pgxoutbox.Tx(pool), "pgxoutbox: Tx of a nil *pgxpool.Pool (make one with pgxpool.New)"},
		{"nil *pgxpool.Conn", pgxoutbox.Tx(pconn), "pgxoutbox: Tx of a nil *pgxpool.Conn (acquire one with pool.Acquire)"},
		{"nil *pgx.Conn", pgxoutbox.Tx(conn), "pgxoutbox: Tx of a nil *pgx.Conn (open one with pgx.Connect)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%s: error %v, want ErrInvalidConfig saying %q", what, err, c.want)
				}
			}
			_, err := outbox.Enqueue(ctx, ob, c.x, Welcome{User: 1}, nil)
			check("Enqueue", err)
			_, err = outbox.EnqueueMany(ctx, ob, c.x, []Welcome{{User: 1}}, nil)
			check("EnqueueMany", err)
			check("Migrate", outbox.Migrate(ctx, c.x, ""))
			_, err = c.x.ExecContext(ctx, "SELECT 1")
			check("ExecContext", err)
		})
	}
}

// TestNewRelayPanicsOnNil: NewRelay with a nil pool, or a nil or zero
// Outbox, panics at once naming which (a zero Outbox was accepted, and
// every batch failed on SQL without a table name).
func TestNewRelayPanicsOnNil(t *testing.T) {
	cfg, err := pgxpool.ParseConfig("postgres://127.0.0.1:1/none") // never connected
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ob := outbox.New(hopper.NewClient(memstore.New(nil), nil), nil)
	for _, c := range []struct {
		name string
		pool *pgxpool.Pool
		ob   *outbox.Outbox
		want string
	}{
		{"nil pool", nil, ob, "nil *pgxpool.Pool (make one with pgxpool.New)"},
		{"nil Outbox", pool, nil, "nil or zero *outbox.Outbox (make one with outbox.New)"},
		{"zero Outbox", pool, new(outbox.Outbox), "nil or zero *outbox.Outbox (make one with outbox.New)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Fatalf("NewRelay panicked with %v, want %q", r, c.want)
				}
			}()
			pgxoutbox.NewRelay(c.pool, c.ob, nil)
		})
	}
}
