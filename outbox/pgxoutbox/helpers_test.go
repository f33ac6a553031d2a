package pgxoutbox_test

import (
	"context"
	"database/sql"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/internal/pgtest"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(runChildRelay())
	}
	pgtest.Main(m)
}

// Welcome is the job of most tests.
type Welcome struct {
	User int `msgpack:"user"`
}

func (Welcome) Kind() string { return "welcome" }

// env is a fresh database with the outbox migrated, a Redis store with a
// key prefix of its own, and an Outbox writing for that store.
type env struct {
	url    string
	pool   *pgxpool.Pool
	db     *sql.DB // the same database through database/sql
	store  hopper.Store
	client *hopper.Client
	ob     *outbox.Outbox
	redis  *redistest.Server
	prefix string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvAt(t, pgtest.DB(t))
}

// newEnvAt is newEnv on the database at url.
func newEnvAt(t *testing.T, url string) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{url: url}
	var err error
	cfg, err := pgxpool.ParseConfig(e.url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 32
	if e.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.pool.Close)
	if e.db, err = sql.Open("pgx", e.url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.db.Close() })
	if err := outbox.Migrate(ctx, pgxoutbox.Tx(e.pool), ""); err != nil {
		t.Fatal(err)
	}
	e.redis = redistest.Start(t)
	e.prefix = redistest.Prefix(t)
	e.store = redisstore.New(e.redis.Client(t), &redisstore.Config{Prefix: e.prefix, Logger: testutil.Logger()})
	e.client = hopper.NewClient(e.store, nil)
	e.ob = outbox.New(e.client, nil)
	return e
}

// relay returns a relay of e's outbox with a quiet logger.
func (e *env) relay(t *testing.T, cfg *pgxoutbox.RelayConfig) *pgxoutbox.Relay {
	t.Helper()
	var c pgxoutbox.RelayConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Logger == nil {
		c.Logger = testutil.Logger()
	}
	return pgxoutbox.NewRelay(e.pool, e.ob, &c)
}

// run runs r until the test ends and checks that Run returned nil.
func run(t *testing.T, r *pgxoutbox.Relay) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := testutil.Receive(t, done, testutil.Wait, "Relay.Run to return"); err != nil {
			t.Errorf("Relay.Run = %v", err)
		}
	})
}

// killIdleInTx terminates the database sessions idle in a transaction:
// called from a store call of a batch, the relay's.
func killIdleInTx(t *testing.T, e *env) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`); err != nil {
		t.Error(err)
	}
}

// stats reads the outbox's stats, failing t on error.
func stats(t *testing.T, r *pgxoutbox.Relay) pgxoutbox.Stats {
	t.Helper()
	s, err := r.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// getJob returns a job from the store, or nil when it is not there.
func getJob(t *testing.T, st hopper.Store, queue, id string) *hopper.JobRecord {
	t.Helper()
	rec, err := hopper.NewInspector(st).GetJob(context.Background(), queue, id)
	if err != nil {
		return nil
	}
	return rec
}

// countingStore counts, per job ID, how many times Enqueue added the job
// (results that are not duplicates) and how many duplicates it reported.
type countingStore struct {
	hopper.Store
	mu    sync.Mutex
	added map[string]int
	dups  int
	fail  error  // when set, Enqueue fails with it
	after func() // when set, runs after each successful Enqueue
}

func newCountingStore(st hopper.Store) *countingStore {
	return &countingStore{Store: st, added: map[string]int{}}
}

func (c *countingStore) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	c.mu.Lock()
	fail := c.fail
	c.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	res, err := c.Store.Enqueue(ctx, jobs)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.after != nil {
		c.after()
	}
	for i, r := range res {
		switch {
		case r.Err != nil:
		case r.Duplicate:
			c.dups++
		default:
			c.added[jobs[i].ID]++
		}
	}
	return res, nil
}

func (c *countingStore) setFail(err error) {
	c.mu.Lock()
	c.fail = err
	c.mu.Unlock()
}

// counts returns a copy of the per-ID counts and the duplicates.
func (c *countingStore) counts() (map[string]int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[string]int, len(c.added))
	for k, v := range c.added {
		m[k] = v
	}
	return m, c.dups
}
