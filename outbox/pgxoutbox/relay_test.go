package pgxoutbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestRelayMovesCommittedJobs writes jobs in a committed database/sql
// transaction and in a rolled-back pgx one; Flush stores only the first,
// with their fixed IDs, delay and unique key, and empties the outbox.
func TestRelayMovesCommittedJobs(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	sqlTx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	now, err := outbox.Enqueue(ctx, e.ob, sqlTx, Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	later, err := outbox.Enqueue(ctx, e.ob, sqlTx, Welcome{User: 2}, &hopper.EnqueueOpts{Queue: "mail", Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	uniq := &hopper.EnqueueOpts{Unique: &hopper.UniqueOpts{}}
	u1, err := outbox.Enqueue(ctx, e.ob, sqlTx, Welcome{User: 3}, uniq)
	if err != nil {
		t.Fatal(err)
	}
	u2, err := outbox.Enqueue(ctx, e.ob, sqlTx, Welcome{User: 3}, uniq)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlTx.Commit(); err != nil {
		t.Fatal(err)
	}
	pgxTx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(pgxTx), Welcome{User: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgxTx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	r := e.relay(t, nil)
	if s := stats(t, r); s.Depth != 4 || s.Oldest.IsZero() || s.Dead != 0 {
		t.Fatalf("stats before the relay: %+v, want 4 rows", s)
	}
	if getJob(t, e.store, now.Queue, now.ID) != nil {
		t.Fatal("a job reached the store before a relay moved it")
	}
	n, err := r.Flush(ctx)
	if err != nil || n != 4 {
		t.Fatalf("Flush = %d, %v; want 4 rows", n, err)
	}
	if rec := getJob(t, e.store, now.Queue, now.ID); rec == nil || rec.State != hopper.StateReady {
		t.Fatalf("job %s: %+v, want ready", now.ID, rec)
	}
	rec := getJob(t, e.store, "mail", later.ID)
	if rec == nil || rec.State != hopper.StatePending || rec.RunAt.Before(later.RunAt) || rec.RunAt.Sub(later.RunAt) >= time.Millisecond {
		t.Fatalf("delayed job %+v: %+v, want pending until %v", later, rec, later.RunAt)
	}
	if getJob(t, e.store, u1.Queue, u1.ID) == nil || getJob(t, e.store, u2.Queue, u2.ID) != nil {
		t.Fatal("unique jobs: want the first stored and the second dropped as a duplicate")
	}
	if getJob(t, e.store, gone.Queue, gone.ID) != nil {
		t.Fatal("the job of a rolled-back transaction reached the store")
	}
	if s := stats(t, r); s != (pgxoutbox.Stats{}) {
		t.Fatalf("stats after Flush: %+v, want empty", s)
	}
}

// TestRelayDeadLetters gives the relay rows the store must refuse: bytes
// that are no job, and a job with an invalid queue. They move to the
// dead-letter table with their errors; the good job beside them is stored.
func TestRelayDeadLetters(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	good, err := outbox.Enqueue(ctx, e.ob, tx, Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	foreign := []byte{1, 0x84, 0xa2, 'i', 'd', 0xa1, 'x', 0xa1, 'q', 0xa3, 'a', ' ', 'b', 0xa1, 'k', 0xa1, 'k', 0xa1, 'a', 0xc4, 0x00}
	for _, b := range [][]byte{[]byte("not a job"), foreign} {
		if _, err := tx.Exec(`INSERT INTO hopper_outbox (job_id, queue, kind, job) VALUES ('x', 'q', 'k', $1)`, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := e.relay(t, nil)
	if n, err := r.Flush(ctx); err != nil || n != 3 {
		t.Fatalf("Flush = %d, %v; want 3 rows", n, err)
	}
	if getJob(t, e.store, good.Queue, good.ID) == nil {
		t.Fatal("the good job was not stored")
	}
	if s := stats(t, r); s.Depth != 0 || s.Dead != 2 {
		t.Fatalf("stats %+v, want 2 dead and none waiting", s)
	}
	rows, err := e.db.Query(`SELECT error FROM hopper_outbox_dead ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var errs []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		errs = append(errs, s)
	}
	if len(errs) != 2 || !strings.Contains(errs[0], "invalid job") || !strings.Contains(errs[1], "invalid queue") {
		t.Fatalf("dead-letter errors %q", errs)
	}
}

// TestRelayStoreFailureKeepsRows makes the store fail: Flush reports it
// and the rows stay; once the store is back they are stored.
func TestRelayStoreFailureKeepsRows(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	cs := newCountingStore(e.store)
	e.ob = outbox.New(hopper.NewClient(cs, nil), nil)
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := outbox.EnqueueMany(ctx, e.ob, tx, []Welcome{{User: 1}, {User: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	down := errors.New("redis is down")
	cs.setFail(down)
	r := e.relay(t, nil)
	if n, err := r.Flush(ctx); !errors.Is(err, down) || n != 0 {
		t.Fatalf("Flush with the store down = %d, %v", n, err)
	}
	if s := stats(t, r); s.Depth != 2 {
		t.Fatalf("stats %+v, want both rows kept", s)
	}
	cs.setFail(nil)
	if n, err := r.Flush(ctx); err != nil || n != 2 {
		t.Fatalf("Flush = %d, %v", n, err)
	}
	for _, j := range jobs {
		if getJob(t, e.store, j.Queue, j.ID) == nil {
			t.Fatalf("job %s not stored", j.ID)
		}
	}
}

// TestRelayWakesOnCommit runs a relay that would poll only once an hour: a
// committed job still reaches the store, so the notification woke it.
func TestRelayWakesOnCommit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	run(t, e.relay(t, &pgxoutbox.RelayConfig{PollInterval: time.Hour}))
	for i := range 3 { // the first commit may come before LISTEN: the relay catches up once listening
		tx, err := e.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(tx), Welcome{User: i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, testutil.Wait, "the committed job in the store", func() bool {
			return getJob(t, e.store, j.Queue, j.ID) != nil
		})
	}
}

// TestRelayPollsWithoutTrigger drops the trigger: no notification comes,
// and the poll fallback still moves the job.
func TestRelayPollsWithoutTrigger(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.pool.Exec(ctx, `DROP TRIGGER hopper_outbox_notify ON hopper_outbox`); err != nil {
		t.Fatal(err)
	}
	run(t, e.relay(t, &pgxoutbox.RelayConfig{PollInterval: 20 * time.Millisecond}))
	j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the job in the store", func() bool {
		return getJob(t, e.store, j.Queue, j.ID) != nil
	})
}

// TestRelayRunsInWorker runs the relay as a Worker service: a job
// committed to the outbox is handled by the worker.
func TestRelayRunsInWorker(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	relay := e.relay(t, nil)
	w := hopper.NewWorker(e.store, &hopper.WorkerConfig{
		Logger:   testutil.Logger(),
		Services: []func(context.Context) error{relay.Run},
	})
	handled := make(chan int, 1)
	hopper.Handle(w, func(_ context.Context, j *hopper.Job[Welcome]) error {
		handled <- j.Args.User
		return nil
	})
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(tx), Welcome{User: 42}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := testutil.Receive(t, handled, testutil.Wait, "the worker to handle the outbox job"); got != 42 {
		t.Fatalf("handled user %d", got)
	}
	cancel()
	if err := testutil.Receive(t, done, testutil.Wait, "Worker.Run to return"); err != nil {
		t.Fatal(err)
	}
	// Run is free again once the worker stopped.
	rctx, rcancel := context.WithTimeout(ctx, time.Millisecond)
	defer rcancel()
	if err := relay.Run(rctx); err != nil {
		t.Fatalf("Run after the worker stopped: %v", err)
	}
}
