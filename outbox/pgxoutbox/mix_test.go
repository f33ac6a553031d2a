package pgxoutbox_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// runLog records the jobs a worker ran: per user, how many times, when
// the first run started, and attempts after the first (redeliveries).
type runLog struct {
	mu      sync.Mutex
	runs    map[int]int
	started map[int]time.Time
	retried int
}

func newRunLog() *runLog { return &runLog{runs: map[int]int{}, started: map[int]time.Time{}} }

func (l *runLog) handle(_ context.Context, j *hopper.Job[Welcome]) error {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs[j.Args.User] == 0 {
		l.started[j.Args.User] = now
	}
	l.runs[j.Args.User]++
	if j.Attempt > 1 {
		l.retried++
	}
	return nil
}

func (l *runLog) snapshot() (map[int]int, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[int]int, len(l.runs))
	for k, v := range l.runs {
		m[k] = v
	}
	return m, l.retried
}

// startedAt returns when the first run of user's job started.
func (l *runLog) startedAt(user int) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.started[user]
	return at, ok
}

// startWorker runs a worker on st with the run log's handler until the
// test ends.
func startWorker(t *testing.T, st hopper.Store, log *runLog) {
	t.Helper()
	// A short IdleWait: these tests are about the relay, and a wake-up that
	// the engine can lose while two claims on a queue are in flight and
	// its room is full (found while writing them) would otherwise stall
	// them for the default 5 s.
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Concurrency: 32, IdleWait: 100 * time.Millisecond, Logger: testutil.Logger()})
	hopper.Handle(w, log.handle)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := testutil.Receive(t, done, 30*time.Second, "Worker.Run to return"); err != nil {
			t.Errorf("Worker.Run = %v", err)
		}
	})
}

// TestCommitRollbackMix runs 10,000 transactions from 16 goroutines, each
// creating an order and enqueueing its job through the outbox, half with
// database/sql and half with pgx, and then committing, rolling back, or
// failing at random, while two relays and a worker run. The jobs run are
// exactly the committed orders, each once.
func TestCommitRollbackMix(t *testing.T) {
	const goroutines, total = 16, 10000
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.pool.Exec(ctx, `CREATE TABLE orders (id bigint PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	log := newRunLog()
	startWorker(t, e.store, log)
	r1, r2 := e.relay(t, nil), e.relay(t, nil)
	run(t, r1)
	run(t, r2)

	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	var next atomic.Int64
	var committed, rolledBack, failed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		rng := rand.New(rand.NewPCG(seed, uint64(g)))
		wg.Go(func() {
			for {
				id := int(next.Add(1))
				if id > total {
					return
				}
				fate := rng.IntN(10) // 0-4 commit, 5-8 roll back, 9 fail in the database
				var err error
				if rng.IntN(2) == 0 {
					err = orderSQL(ctx, e, id, fate)
				} else {
					err = orderPgx(ctx, e, id, fate)
				}
				switch {
				case err == nil && fate < 5:
					committed.Add(1)
				case err == nil:
					rolledBack.Add(1)
				case errors.Is(err, errFailed):
					failed.Add(1)
				default:
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d committed, %d rolled back, %d failed in the database", committed.Load(), rolledBack.Load(), failed.Load())

	orders := map[int]bool{}
	rows, err := e.pool.Query(ctx, `SELECT id FROM orders`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		orders[int(id)] = true
	}
	if int64(len(orders)) != committed.Load() {
		t.Fatalf("%d orders in the table, %d transactions committed", len(orders), committed.Load())
	}
	testutil.Eventually(t, 60*time.Second, func() error {
		runs, _ := log.snapshot()
		if s := stats(t, r1); s.Depth != 0 || len(runs) < len(orders) {
			return fmt.Errorf("%d rows waiting, %d of %d jobs run", s.Depth, len(runs), len(orders))
		}
		return nil
	})
	runs, retried := log.snapshot()
	for user, n := range runs {
		if !orders[user] {
			t.Errorf("job of order %d ran, but the order was not committed", user)
		}
		if n != 1 {
			t.Errorf("job of order %d ran %d times", user, n)
		}
	}
	if len(runs) != len(orders) || retried != 0 {
		t.Errorf("%d jobs ran (%d redelivered) for %d committed orders", len(runs), retried, len(orders))
	}
}

// errFailed marks a transaction that failed in the database on purpose.
var errFailed = errors.New("failed on purpose")

// orderSQL creates order id and its job in a database/sql transaction and
// ends it as fate says.
func orderSQL(ctx context.Context, e *env, id, fate int) error {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `INSERT INTO orders (id) VALUES ($1)`, id); err != nil {
		return err
	}
	if _, err := outbox.Enqueue(ctx, e.ob, tx, Welcome{User: id}, nil); err != nil {
		return err
	}
	switch {
	case fate < 5:
		return tx.Commit()
	case fate < 9:
		return tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1/0`); err == nil {
		return errors.New("1/0 did not fail")
	}
	if err := tx.Commit(); !errors.Is(err, sql.ErrTxDone) && err != nil && !isAborted(err) {
		return fmt.Errorf("commit after a failed statement: %w", err)
	}
	return errFailed
}

// orderPgx is orderSQL with a pgx transaction.
func orderPgx(ctx context.Context, e *env, id, fate int) error {
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, `INSERT INTO orders (id) VALUES ($1)`, id); err != nil {
		return err
	}
	if _, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(tx), Welcome{User: id}, nil); err != nil {
		return err
	}
	switch {
	case fate < 5:
		return tx.Commit(ctx)
	case fate < 9:
		return tx.Rollback(ctx)
	}
	if _, err := tx.Exec(ctx, `SELECT 1/0`); err == nil {
		return errors.New("1/0 did not fail")
	}
	if err := tx.Commit(ctx); err != nil && !errors.Is(err, pgx.ErrTxCommitRollback) {
		return fmt.Errorf("commit after a failed statement: %w", err)
	}
	return errFailed
}

// isAborted reports a commit that PostgreSQL turned into a rollback.
func isAborted(err error) bool {
	return err != nil && errors.Is(err, pgx.ErrTxCommitRollback)
}
