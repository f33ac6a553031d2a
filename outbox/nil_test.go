package outbox_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/outbox"
)

// TestNilInput gives Enqueue, EnqueueMany and Migrate a nil or zero
// Outbox and nil transactions and databases: each is refused with an
// error wrapping hopper.ErrInvalidConfig that names what was nil (each was
// a nil dereference). No database is needed: nothing is written.
func TestNilInput(t *testing.T) {
	ctx := context.Background()
	ob := outbox.New(hopper.NewClient(memstore.New(nil), nil), nil)
	var (
		nilTx   *sql.Tx
		nilDB   *sql.DB
		nilConn *sql.Conn
	)
	check := func(t *testing.T, err error, want string) {
		t.Helper()
		if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want ErrInvalidConfig saying %q", err, want)
		}
	}
	for _, c := range []struct {
		name string
		ob   *outbox.Outbox
		tx   outbox.Execer
		want string
	}{
		{"nil tx", ob, nil, "outbox: tx is nil (pass the transaction"},
		{"nil *sql.Tx", ob, nilTx, "outbox: tx is a nil *sql.Tx (pass"},
		{"nil *sql.DB", ob, nilDB, "outbox: tx is a nil *sql.DB (pass"},
		{"nil *sql.Conn", ob, nilConn, "outbox: tx is a nil *sql.Conn (pass"},
		{"nil Outbox", nil, nilTx, "a nil or zero *Outbox (make one with outbox.New)"},
		{"zero Outbox", new(outbox.Outbox), nilTx, "a nil or zero *Outbox (make one with outbox.New)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			job, err := outbox.Enqueue(ctx, c.ob, c.tx, Welcome{User: 1}, nil)
			check(t, err, c.want)
			if job != nil {
				t.Fatalf("Enqueue returned a job %+v with its error", job)
			}
			jobs, err := outbox.EnqueueMany(ctx, c.ob, c.tx, []Welcome{{User: 1}, {User: 2}}, nil)
			check(t, err, c.want)
			if jobs != nil {
				t.Fatalf("EnqueueMany returned jobs %v with its error", jobs)
			}
			_, err = outbox.EnqueueMany(ctx, c.ob, c.tx, []Welcome(nil), nil)
			check(t, err, c.want) // as hopper.EnqueueMany with a nil Client
		})
	}
	t.Run("Migrate", func(t *testing.T) {
		check(t, outbox.Migrate(ctx, nil, ""), "outbox: db is nil (pass the database")
		check(t, outbox.Migrate(ctx, nilDB, ""), "outbox: db is a nil *sql.DB (pass the database")
		check(t, outbox.Migrate(ctx, nilTx, ""), "outbox: db is a nil *sql.Tx")
	})
}

// TestNewPanicsOnNilClient: New with a nil or zero Client panics at once,
// naming it, rather than returning an Outbox that fails every write.
func TestNewPanicsOnNilClient(t *testing.T) {
	for _, c := range []*hopper.Client{nil, new(hopper.Client)} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, "nil or zero *hopper.Client (make one with hopper.NewClient)") {
					t.Fatalf("New(%p) panicked with %v", c, r)
				}
			}()
			outbox.New(c, nil)
		}()
	}
}
