package outbox_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type Welcome struct {
	User int `msgpack:"user"`
}

func (Welcome) Kind() string { return "welcome" }

// openDB opens a fresh database with database/sql (pgx's stdlib driver)
// and migrates the outbox in it.
func openDB(t *testing.T, table string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", pgtest.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := outbox.Migrate(context.Background(), db, table); err != nil {
		t.Fatal(err)
	}
	return db
}

// rowIDs lists the job IDs in an outbox table, in seq order.
func rowIDs(t *testing.T, db *sql.DB, ob *outbox.Outbox) []string {
	t.Helper()
	rows, err := db.Query("SELECT job_id FROM " + ob.Names().Table + " ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestEnqueueInTransaction writes jobs in a transaction that commits and
// one that rolls back: only the first leaves rows, whose bytes decode to
// the jobs Enqueue reported, with the ID known before commit.
func TestEnqueueInTransaction(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "")
	ob := outbox.New(hopper.NewClient(memstore.New(nil), nil), nil)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	one, err := outbox.Enqueue(ctx, ob, tx, Welcome{User: 1}, &hopper.EnqueueOpts{Queue: "mail", Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	many, err := outbox.EnqueueMany(ctx, ob, tx, []Welcome{{User: 2}, {User: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if one.ID == "" || one.Queue != "mail" || one.Kind != "welcome" || one.RunAt.Before(time.Now().Add(59*time.Minute)) {
		t.Fatalf("Enqueue = %+v", one)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outbox.Enqueue(ctx, ob, tx, Welcome{User: 4}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	want := []string{one.ID, many[0].ID, many[1].ID}
	if got := rowIDs(t, db, ob); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v, want %v", got, want)
	}
	var b []byte
	if err := db.QueryRow("SELECT job FROM hopper_outbox ORDER BY seq LIMIT 1").Scan(&b); err != nil {
		t.Fatal(err)
	}
	var p hopper.PreparedJob
	if err := p.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if p.ID() != one.ID || p.Queue() != "mail" || !p.RunAt().Equal(one.RunAt.Truncate(time.Millisecond).Add(roundUp(one.RunAt))) {
		t.Fatalf("row decodes to %s %s %v, want %+v", p.ID(), p.Queue(), p.RunAt(), one)
	}
}

// roundUp is what rounding t up to the millisecond adds.
func roundUp(t time.Time) time.Duration {
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		return time.Millisecond
	}
	return 0
}

// TestEnqueueManyChunks writes more jobs than one statement holds.
func TestEnqueueManyChunks(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "jobs_outbox")
	ob := outbox.New(hopper.NewClient(memstore.New(nil), nil), &outbox.Config{Table: "jobs_outbox"})
	args := make([]Welcome, 2500)
	for i := range args {
		args[i].User = i
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := outbox.EnqueueMany(ctx, ob, tx, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	ids := rowIDs(t, db, ob)
	if len(ids) != len(args) {
		t.Fatalf("%d rows, want %d", len(ids), len(args))
	}
	for i, j := range jobs {
		if ids[i] != j.ID {
			t.Fatalf("row %d is job %s, want %s", i, ids[i], j.ID)
		}
	}
}

// TestEnqueueRefusesBadJobs fails before writing anything.
func TestEnqueueRefusesBadJobs(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "")
	ob := outbox.New(hopper.NewClient(memstore.New(nil), nil), nil)
	if _, err := outbox.Enqueue(ctx, ob, db, Welcome{}, &hopper.EnqueueOpts{Queue: "a b"}); !errors.Is(err, hopper.ErrInvalidQueue) {
		t.Fatalf("bad queue: %v", err)
	}
	if _, err := outbox.EnqueueMany(ctx, ob, db, []Welcome{{}, {}}, &hopper.EnqueueOpts{ID: "same"}); !errors.Is(err, hopper.ErrInvalidJob) {
		t.Fatalf("one ID for two jobs: %v", err)
	}
	if ids := rowIDs(t, db, ob); len(ids) != 0 {
		t.Fatalf("refused jobs left rows %v", ids)
	}
}

// TestMigrateIsIdempotent migrates one table from eight goroutines at once,
// then again: no error, one table.
func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "app.outbox_a")
	_ = db
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- outbox.Migrate(ctx, db, "hopper_outbox") })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE tablename IN ('hopper_outbox', 'hopper_outbox_dead', 'outbox_a', 'outbox_a_dead')`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("%d tables (%v), want 4", n, err)
	}
}

// TestNamesOf checks the names derived from a table and the names refused.
func TestNamesOf(t *testing.T) {
	n, err := outbox.NamesOf("app.jobs")
	if err != nil {
		t.Fatal(err)
	}
	want := outbox.Names{Table: `"app"."jobs"`, Dead: `"app"."jobs_dead"`, Function: `"app"."jobs_notify"`, Trigger: "jobs_notify", Channel: "app.jobs"}
	if n != want {
		t.Fatalf("NamesOf = %+v, want %+v", n, want)
	}
	// One table written two ways, one channel: a relay told
	// public.hopper_outbox heard nothing from writers told hopper_outbox.
	pub, _ := outbox.NamesOf("public.hopper_outbox")
	plain, _ := outbox.NamesOf("")
	if pub.Channel != plain.Channel {
		t.Errorf("channels of public.hopper_outbox and hopper_outbox: %q and %q, want one", pub.Channel, plain.Channel)
	}
	for _, bad := range []string{"Jobs", "1jobs", "a.b.c", "jobs;drop", `"jobs"`, "a.", strings.Repeat("x", 57)} {
		if _, err := outbox.NamesOf(bad); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Errorf("NamesOf(%q) = %v, want ErrInvalidConfig", bad, err)
		}
	}
}
