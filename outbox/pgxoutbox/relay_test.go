package pgxoutbox_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
	"github.com/hopperq/hopper/store"
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

// queueDown is a store whose queue "broken" fails every enqueue, as a
// Redis shard down would, while the others take their jobs.
type queueDown struct{ hopper.Store }

func (s queueDown) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	out := make([]store.EnqueueResult, len(jobs))
	var ok []*store.NewJob
	var at []int
	for i, j := range jobs {
		if j.Queue == "broken" {
			out[i] = store.EnqueueResult{ID: j.ID, Err: errors.New("dial tcp 127.0.0.1:7203: connect: connection refused")}
			continue
		}
		ok, at = append(ok, j), append(at, i)
	}
	if len(ok) > 0 {
		res, err := s.Store.Enqueue(ctx, ok)
		if err != nil {
			return nil, err
		}
		for k, r := range res {
			out[at[k]] = r
		}
	}
	return out, nil
}

// TestRelayPassesOverAFailingQueue: the rows of a queue whose store calls
// fail stay in place while the rows behind them, of other queues, are
// relayed; a whole batch of them held every other queue back (the rows
// stay first in order, and each batch took them again and backed off).
func TestRelayPassesOverAFailingQueue(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.ob = outbox.New(hopper.NewClient(queueDown{e.store}, nil), nil)
	var healthy []*outbox.Job
	for i := range 15 {
		q := "broken"
		if i >= 5 {
			q = "ok"
		}
		j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: i}, &hopper.EnqueueOpts{Queue: q})
		if err != nil {
			t.Fatal(err)
		}
		if q == "ok" {
			healthy = append(healthy, j)
		}
	}
	r := e.relay(t, &pgxoutbox.RelayConfig{BatchSize: 5})
	if n, err := r.Flush(ctx); err != nil || n != 10 {
		t.Fatalf("Flush = %d, %v; want the 10 rows of the healthy queue behind 5 of the failing one", n, err)
	}
	for _, j := range healthy {
		if getJob(t, e.store, j.Queue, j.ID) == nil {
			t.Fatalf("job %s of the healthy queue not stored", j.ID)
		}
	}
	if s := stats(t, r); s.Depth != 5 {
		t.Fatalf("stats %+v, want the failing queue's 5 rows kept", s)
	}
}

// stallStore is a store whose Enqueue blocks, whatever its context, until
// released: a relay stopped in the middle of a batch (SIGSTOP, a paused
// VM) as its store call was out.
type stallStore struct {
	hopper.Store
	entered, release chan struct{}
}

func (s stallStore) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	close(s.entered)
	<-s.release
	return nil, errors.New("stalled")
}

// TestStalledRelayFreesItsRows: the rows a relay locked and then stalled
// on are freed by PostgreSQL once the relay has been idle in its
// transaction for twice BatchTimeout, and another relay stores them; they
// stayed locked until the stalled relay came back (or TCP gave up, hours
// later), and the other relays passed over them.
func TestStalledRelayFreesItsRows(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := stallStore{Store: e.store, entered: make(chan struct{}), release: make(chan struct{})}
	stalled := pgxoutbox.NewRelay(e.pool, outbox.New(hopper.NewClient(st, nil), nil), &pgxoutbox.RelayConfig{BatchTimeout: 200 * time.Millisecond, Logger: testutil.Logger()})
	done := make(chan error, 1)
	go func() {
		_, err := stalled.Flush(ctx)
		done <- err
	}()
	<-st.entered
	var once sync.Once
	release := func() { once.Do(func() { close(st.release) }) }
	t.Cleanup(func() { release(); <-done }) // a failure below leaves no relay stalled
	other := e.relay(t, nil)
	testutil.EventuallyTrue(t, testutil.Wait, "the other relay to store the stalled relay's row", func() bool {
		if _, err := other.Flush(ctx); err != nil {
			t.Logf("other relay: %v", err)
		}
		return getJob(t, e.store, j.Queue, j.ID) != nil
	})
	release()
	if err := <-done; err == nil {
		t.Error("the stalled relay's batch committed after PostgreSQL ended its transaction")
	}
	done <- nil // for the cleanup
}

// TestMigrateBesideAnOpenWriter: Migrate, which the docs say to run at
// every start, finishes while a transaction that wrote to the outbox is
// still open: it recreated the trigger each time, which waits for that
// transaction and makes every writer and relay wait behind it.
func TestMigrateBesideAnOpenWriter(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(tx), Welcome{User: 1}, nil); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := outbox.Migrate(mctx, e.db, ""); err != nil {
		t.Fatalf("Migrate beside a writer's open transaction: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRefusedRowNotLostOnSeqReuse: a refused row whose seq the dead-letter
// table already holds (the outbox's sequence restarted) stays in the
// outbox, where an operator sees it, rather than being deleted: it was
// deleted and, its insert skipped on the conflict, lost while the log
// said it was moved.
func TestRefusedRowNotLostOnSeqReuse(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	garbage := func(id string) {
		t.Helper()
		if _, err := e.pool.Exec(ctx, `INSERT INTO hopper_outbox (job_id, queue, kind, job) VALUES ($1, 'q', 'k', '\xff')`, id); err != nil {
			t.Fatal(err)
		}
	}
	r := e.relay(t, nil)
	garbage("garbage-a")
	if n, err := r.Flush(ctx); err != nil || n != 1 {
		t.Fatalf("Flush of a garbage row = %d, %v; want it moved", n, err)
	}
	if _, err := e.pool.Exec(ctx, `TRUNCATE hopper_outbox RESTART IDENTITY`); err != nil {
		t.Fatal(err)
	}
	garbage("garbage-b") // seq 1 again
	if _, err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []string
	rows, err := e.pool.Query(ctx, `SELECT job_id FROM hopper_outbox UNION ALL SELECT job_id FROM hopper_outbox_dead ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if strings.Join(ids, ",") != "garbage-a,garbage-b" {
		t.Fatalf("rows in the outbox and its dead-letter table: %v; want both garbage rows kept", ids)
	}
}

// TestNewerRowsWarnedOnce: rows in a newer format are left in place and
// warned about once each, not at every batch, while the rows behind them
// are relayed: a relay warned about each at every poll (12,600 lines in
// 6 s in a rolling upgrade).
func TestNewerRowsWarnedOnce(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	for range 2 {
		if _, err := e.pool.Exec(ctx, `INSERT INTO hopper_outbox (job_id, queue, kind, job) VALUES ('newer', 'q', 'k', '\x0280')`); err != nil {
			t.Fatal(err)
		}
	}
	j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := newLogRecorder()
	r := e.relay(t, &pgxoutbox.RelayConfig{BatchSize: 2, Logger: slog.New(rec)})
	for range 3 {
		if _, err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if getJob(t, e.store, j.Queue, j.ID) == nil {
		t.Fatal("the job behind the newer rows was not relayed")
	}
	if s := stats(t, r); s.Depth != 2 {
		t.Fatalf("stats %+v, want the 2 newer rows left", s)
	}
	warned := 0
	for len(rec.ch) > 0 {
		if r := <-rec.ch; strings.Contains(r.Message, "newer format") {
			warned++
		}
	}
	if warned != 2 {
		t.Fatalf("%d warnings about the newer rows over 3 flushes, want one each (2)", warned)
	}
}

// TestMissingTableSaysMigrate: a relay's batch and its stats on a table
// that does not exist say how to create it.
func TestMissingTableSaysMigrate(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.pool.Exec(ctx, `ALTER TABLE hopper_outbox RENAME TO hopper_outbox_away`); err != nil {
		t.Fatal(err)
	}
	r := e.relay(t, nil)
	if _, err := r.Flush(ctx); err == nil || !strings.Contains(err.Error(), "hopper-outbox migrate") {
		t.Errorf("Flush on a missing table: %v, want it to say how to create it", err)
	}
	if _, err := r.Stats(ctx); err == nil || !strings.Contains(err.Error(), "hopper-outbox migrate") {
		t.Errorf("Stats on a missing table: %v, want it to say how to create it", err)
	}
}

// Big is a job with a payload of its own size.
type Big struct{ P []byte }

func (Big) Kind() string { return "big" }

// batchRecorder records how many jobs each store call carried.
type batchRecorder struct {
	hopper.Store
	mu    sync.Mutex
	sizes []int
}

func (b *batchRecorder) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(jobs))
	b.mu.Unlock()
	return b.Store.Enqueue(ctx, jobs)
}

// TestRelayBatchBytes: a batch takes rows while the jobs before each come
// to less than BatchBytes, so large jobs go a few a store call; every row
// is relayed, in order. A batch of 1,000 jobs of a megabyte made one store
// call of a gigabyte, which ran past BatchTimeout at every try, and the
// outbox never drained (an outside trial).
func TestRelayBatchBytes(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	rec := &batchRecorder{Store: e.store}
	e.ob = outbox.New(hopper.NewClient(rec, nil), nil)
	var jobs []*outbox.Job
	for range 10 {
		j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Big{P: make([]byte, 3000)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	r := e.relay(t, &pgxoutbox.RelayConfig{BatchBytes: 8 << 10})
	if n, err := r.Flush(ctx); err != nil || n != 10 {
		t.Fatalf("Flush = %d, %v; want the 10 rows", n, err)
	}
	// Jobs of some 3 KB: three start below 8 KiB.
	if !slices.Equal(rec.sizes, []int{3, 3, 3, 1}) {
		t.Fatalf("store calls carried %v jobs, want [3 3 3 1]", rec.sizes)
	}
	for _, j := range jobs {
		if getJob(t, e.store, j.Queue, j.ID) == nil {
			t.Fatalf("job %s not stored", j.ID)
		}
	}
	// One job larger than BatchBytes goes alone.
	j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Big{P: make([]byte, 20000)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.Flush(ctx); err != nil || n != 1 || getJob(t, e.store, j.Queue, j.ID) == nil {
		t.Fatalf("Flush of a job over BatchBytes = %d, %v; want it stored", n, err)
	}
	if err := (pgxoutbox.RelayConfig{BatchBytes: 10}).Validate(); !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "BatchBytes") {
		t.Fatalf("Validate of BatchBytes 10: %v, want ErrInvalidConfig naming it", err)
	}
}

// slowStore is a store whose Enqueue returns only when its context ends.
type slowStore struct{ hopper.Store }

func (slowStore) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("slow store: %w", ctx.Err())
}

// TestRelayTimeoutIsNotAnOutage: a batch that runs out of BatchTimeout
// says so, and what its store call said, and is not taken for PostgreSQL
// being unreachable: it logged "PostgreSQL unreachable" and retried every
// 25 ms, and the store call's error was lost behind the commit's (an
// outside trial).
func TestRelayTimeoutIsNotAnOutage(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil); err != nil {
		t.Fatal(err)
	}
	slow := pgxoutbox.NewRelay(e.pool, outbox.New(hopper.NewClient(slowStore{e.store}, nil), nil),
		&pgxoutbox.RelayConfig{BatchTimeout: 200 * time.Millisecond, Logger: testutil.Logger()})
	_, err := slow.Flush(ctx)
	if err == nil {
		t.Fatal("Flush through a store that never answers returned no error")
	}
	for _, want := range []string{"BatchTimeout", "slow store"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Flush error %q, want it to say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "PostgreSQL unreachable") {
		t.Errorf("Flush error %q takes a timeout for an outage", err)
	}
	if s := stats(t, e.relay(t, nil)); s.Depth != 1 {
		t.Fatalf("stats %+v, want the row kept", s)
	}
}

// TestEnqueueOnAMissingTableSaysMigrate: a writer's Enqueue on a database
// without the outbox's table says how to create it.
func TestEnqueueOnAMissingTableSaysMigrate(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.pool.Exec(ctx, `ALTER TABLE hopper_outbox RENAME TO hopper_outbox_away`); err != nil {
		t.Fatal(err)
	}
	for name, tx := range map[string]outbox.Execer{"pgx": pgxoutbox.Tx(e.pool), "database/sql": e.db} {
		if _, err := outbox.Enqueue(ctx, e.ob, tx, Welcome{User: 1}, nil); err == nil || !strings.Contains(err.Error(), "hopper-outbox migrate") {
			t.Errorf("Enqueue through %s on a missing table: %v, want it to say how to create it", name, err)
		}
	}
}

// TestRelayBuriesAnEmptyRow: a row whose job is empty bytes is no job: it
// moves to the dead-letter table, and the job behind it is relayed.
func TestRelayBuriesAnEmptyRow(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.pool.Exec(ctx, `INSERT INTO hopper_outbox (job_id, queue, kind, job) VALUES ('empty', 'q', 'k', '')`); err != nil {
		t.Fatal(err)
	}
	j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := e.relay(t, nil)
	if n, err := r.Flush(ctx); err != nil || n != 2 {
		t.Fatalf("Flush = %d, %v; want both rows moved", n, err)
	}
	if getJob(t, e.store, j.Queue, j.ID) == nil {
		t.Fatal("the job behind the empty row was not relayed")
	}
	if s := stats(t, r); s.Depth != 0 || s.Dead != 1 {
		t.Fatalf("stats %+v, want the empty row dead-lettered", s)
	}
}
