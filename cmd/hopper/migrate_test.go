package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// migrateEnv is a Redis prefix for the migrate commands, with a client
// to seed and read it.
type migrateEnv struct {
	rdb    redis.UniversalClient
	prefix string
	flags  []string
}

func newMigrateEnv(t *testing.T) *migrateEnv {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	return &migrateEnv{rdb: srv.Client(t), prefix: prefix,
		flags: []string{"--redis", "redis://" + srv.Addr + "/0", "--redis-prefix", prefix}}
}

// migrate runs "hopper migrate <sub> <store flags> args...".
func (e *migrateEnv) migrate(t *testing.T, sub string, args ...string) result {
	t.Helper()
	var stdout, stderr syncBuffer
	a := &app{stdout: &stdout, stderr: &stderr, open: openRedis}
	full := append(append([]string{"migrate", sub}, e.flags...), args...)
	code := run(t.Context(), a, full)
	return result{code, stdout.String(), stderr.String()}
}

// store returns a store on the prefix.
func (e *migrateEnv) store() *redisstore.Store {
	return redisstore.New(e.rdb, &redisstore.Config{Prefix: e.prefix})
}

// rateTerms are the marks' fields a release before v0.1.0 did not write.
var rateTerms = []string{"rwin", "riv", "rtol", "gwin", "giv", "gtol", "rg", "rlead", "glead"}

// seedOld writes what a release before v0.1.0 leaves: a job in each of
// queues, their rate limits set without the terms this release derives
// (LAYOUT.md: the marks of {<prefix>:<queue>}), and no layout key.
func (e *migrateEnv) seedOld(t *testing.T, queues ...string) {
	t.Helper()
	ctx := t.Context()
	s := e.store()
	for _, q := range queues {
		if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: q + "-1", Queue: q, Kind: "k", Args: []byte("{}")}}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetQueueConfig(ctx, q, store.QueueConfig{RateLimit: 5, RatePeriod: time.Second, GroupRateLimit: 2, GroupRatePeriod: time.Second}); err != nil {
			t.Fatal(err)
		}
		if err := e.rdb.HDel(ctx, e.marks(q), rateTerms...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.rdb.Del(ctx, "{"+e.prefix+"}:layout").Err(); err != nil {
		t.Fatal(err)
	}
}

func (e *migrateEnv) marks(q string) string { return "{" + e.prefix + ":" + q + "}:m" }

// liveWorker registers worker id as alive for a minute, with the record
// value(now), now the server's clock in ms (LAYOUT.md: worker, workers).
func (e *migrateEnv) liveWorker(t *testing.T, id string, value func(nowMs int64) string) {
	t.Helper()
	ctx := t.Context()
	now, err := e.rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	tag := "{" + e.prefix + "}:"
	if err := e.rdb.Set(ctx, tag+"w:"+id, value(now.UnixMilli()), time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.ZAdd(ctx, tag+"workers", redis.Z{Score: float64(now.UnixMilli() + 60000), Member: id}).Err(); err != nil {
		t.Fatal(err)
	}
}

// migrated reports whether queue q carries the claim guard.
func (e *migrateEnv) migrated(t *testing.T, q string) bool {
	t.Helper()
	ok, err := e.rdb.HExists(t.Context(), e.marks(q), "rg").Result()
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func (e *migrateEnv) layout(t *testing.T) string {
	t.Helper()
	v, err := e.rdb.Get(t.Context(), "{"+e.prefix+"}:layout").Result()
	if err == redis.Nil {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrateStatusFresh(t *testing.T) {
	e := newMigrateEnv(t)
	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status")
	wantOut(t, r.stdout, "migrate status on a fresh Redis", "no hopper data", "layout 1", "none, the data is current", "old workers:      none alive")
	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up")
	wantOut(t, r.stdout, "migrate up on a fresh Redis", "nothing to do")
	if got := e.layout(t); got != "1" {
		t.Fatalf("layout after migrate up on a fresh Redis: %s, want 1", got)
	}
}

func TestMigrateUpLayoutZero(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "emails", "reports")
	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status")
	wantOut(t, r.stdout, "migrate status on layout 0", "stored layout:    0", "this release:     layout 1", "0 -> 1", "hopper migrate up")

	r = e.migrate(t, "up", "--dry-run")
	wantCode(t, r, 0, "migrate up --dry-run")
	wantOut(t, r.stdout, "dry run", "step 0 -> 1", "queue emails: would", "queue reports: would", "nothing was changed")
	if e.migrated(t, "emails") || e.layout(t) != "(none)" {
		t.Fatal("the dry run changed the data")
	}

	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up")
	wantOut(t, r.stdout, "migrate up", "step 0 -> 1", "queue emails: settings written again", "queue reports: settings written again", "done: the data is at layout 1")
	if !e.migrated(t, "emails") || !e.migrated(t, "reports") || e.layout(t) != "1" {
		t.Fatal("after migrate up: want both queues migrated and layout 1")
	}

	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up again")
	wantOut(t, r.stdout, "migrate up again", "nothing to do: the data is at layout 1")
	if strings.Contains(r.stdout, "step") {
		t.Fatalf("a second run ran a step:\n%s", r.stdout)
	}
}

// TestMigrateUpResumes runs migrate up on data one queue of which a
// previous run, cut short, had migrated: the rest is done.
func TestMigrateUpResumes(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "a", "b")
	// What the run cut short did to queue a: its settings written again
	// by this release.
	s := e.store()
	st, err := s.GetQueueStats(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetQueueConfig(t.Context(), "a", st.Config); err != nil {
		t.Fatal(err)
	}
	r := e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up")
	wantOut(t, r.stdout, "resumed migrate up", "queue b: settings written again", "layout 1")
	if strings.Contains(r.stdout, "queue a:") {
		t.Fatalf("the resumed run rewrote queue a again:\n%s", r.stdout)
	}
}

func TestMigrateUpRefusesOldWorkers(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "a")
	// A worker of a release before v0.1.0: its record has no layout
	// version (LAYOUT.md: worker).
	ctx := t.Context()
	rec, err := msgpack.Marshal(map[string]any{"i": "old-worker", "h": "host-7", "p": 42})
	if err != nil {
		t.Fatal(err)
	}
	tag := "{" + e.prefix + "}:"
	e.liveWorker(t, "old-worker", func(nowMs int64) string { return strconv.FormatInt(nowMs, 10) + "," + string(rec) })
	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status")
	wantOut(t, r.stdout, "status with an old worker", "1 alive", "old-worker", "host-7")
	r = e.migrate(t, "up")
	wantCode(t, r, 1, "migrate up with an old worker")
	wantOut(t, r.stderr, "refusal", "old-worker", "host-7", "--force")
	if e.migrated(t, "a") {
		t.Fatal("the refused migration changed queue a")
	}
	r = e.migrate(t, "up", "--force")
	wantCode(t, r, 0, "migrate up --force")
	wantOut(t, r.stdout, "forced migrate up", "done: the data is at layout 1", "warning")

	// The old worker writes queue a's settings in its layout, then stops:
	// "hopper migrate up" again, as the warning says, migrates a again. It
	// said "nothing to do", and a stayed without its rate limit's guard.
	if err := e.rdb.HDel(ctx, e.marks("a"), rateTerms...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.ZRem(ctx, tag+"workers", "old-worker").Err(); err != nil {
		t.Fatal(err)
	}
	r = e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status after a forced migration")
	wantOut(t, r.stdout, "status after a forced migration", "0 -> 1", "again", "none alive")
	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up once the old worker is gone")
	wantOut(t, r.stdout, "migrate up once the old worker is gone", "migrating again", "done: the data is at layout 1")
	if !e.migrated(t, "a") {
		t.Fatalf("migrate up once the old worker was gone left queue a unmigrated:\n%s", r.stdout)
	}
	r = e.migrate(t, "up")
	wantOut(t, r.stdout, "migrate up a third time", "nothing to do")
}

func TestMigrateNewerLayoutRefused(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "a")
	if err := e.rdb.Set(t.Context(), "{"+e.prefix+"}:layout", "7", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// Exit 1 while workers of this release refuse the data, so that a
	// deploy script can gate on it (it exited 0).
	r := e.migrate(t, "status")
	wantCode(t, r, 1, "migrate status of data this release refuses")
	wantOut(t, r.stdout, "status of a newer layout", "stored layout:    7", "layout 1", "upgrade hopper")
	r = e.migrate(t, "up")
	wantCode(t, r, 1, "migrate up on a newer layout")
	wantOut(t, r.stderr, "refusal", "layout 7", "layout 1", "upgrade hopper")
	var stdout, stderr syncBuffer
	code := run(t.Context(), &app{stdout: &stdout, stderr: &stderr, open: openRedis}, append([]string{"stats"}, e.flags...))
	if code != 1 || !strings.Contains(stderr.String(), "layout 7") {
		t.Fatalf("hopper stats on a newer layout: exit %d, %q; want 1 and the refusal", code, stderr.String())
	}
}

func TestMigrateUsage(t *testing.T) {
	e := newMigrateEnv(t)
	for _, args := range [][]string{{"migrate"}, {"migrate", "down"}, {"migrate", "status", "extra"}} {
		var stdout, stderr syncBuffer
		if code := run(t.Context(), &app{stdout: &stdout, stderr: &stderr, open: openRedis}, append(args, e.flags...)); code != 2 {
			t.Errorf("hopper %v: exit %d, want 2 (usage)", args, code)
		}
	}
}

func TestMigrateCluster(t *testing.T) {
	c := redistest.StartCluster(t)
	prefix := redistest.Prefix(t)
	url := clusterURL(c)
	e := &migrateEnv{rdb: c.Client(t), prefix: prefix, flags: []string{"--cluster", "--redis", url, "--redis-prefix", prefix}}
	queues := []string{"q1", "q2", "q3", "q4", "q5"}
	e.seedOld(t, queues...)
	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status on a cluster")
	wantOut(t, r.stdout, "status on a cluster", "stored layout:    0", "0 -> 1")
	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up on a cluster")
	for _, q := range queues {
		if !e.migrated(t, q) {
			t.Fatalf("queue %s not migrated on the cluster:\n%s", q, r.stdout)
		}
	}
	if e.layout(t) != "1" {
		t.Fatal("no layout 1 stored on the cluster")
	}
	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up again on a cluster")
	wantOut(t, r.stdout, "second run on a cluster", "nothing to do")
}

// TestQueuesSetSameRateLimitWritesGuard: "hopper queues set --rate-limit
// N" with the rate limit the queue has already writes the settings again,
// so a queue whose settings an older release wrote (without the guard
// this release derives) gets it, as docs/upgrading.md says. It printed
// "set rate-limit" and wrote nothing, as the value had not changed.
func TestQueuesSetSameRateLimitWritesGuard(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "a")
	if e.migrated(t, "a") {
		t.Fatal("seedOld left the guard")
	}
	c := &cli{open: openRedis, flags: e.flags}
	r := c.run(t, "queues", "set", "--rate-limit", "5", "a")
	wantCode(t, r, 0, "queues set --rate-limit 5 a (unchanged)")
	if !e.migrated(t, "a") {
		t.Fatalf("queues set --rate-limit 5 (the queue's own) left queue a without the guard:\n%s%s", r.stdout, r.stderr)
	}
}

// TestMigrateUnreadableWorkerRecord: a live worker record that does not
// decode counts as an old worker's: "migrate status" lists it, "migrate
// up" refuses naming it, and "--force" migrates. Each failed with
// "decode worker record: corrupt stored data", naming nothing, and
// --force too.
func TestMigrateUnreadableWorkerRecord(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "a")
	e.liveWorker(t, "bad", func(int64) string { return "garbage" })
	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status with an unreadable worker record")
	wantOut(t, r.stdout, "status with an unreadable worker record", "1 alive", "bad  a record that does not decode")
	r = e.migrate(t, "up")
	wantCode(t, r, 1, "migrate up with an unreadable worker record")
	wantOut(t, r.stderr, "refusal", "bad (a record that does not decode)", "--force")
	r = e.migrate(t, "up", "--force")
	wantCode(t, r, 0, "migrate up --force with an unreadable worker record")
	if !e.migrated(t, "a") {
		t.Fatalf("migrate up --force left queue a unmigrated:\n%s%s", r.stdout, r.stderr)
	}
}

// TestMigrateUnreadableLayoutKey: a layout key that holds no layout
// version makes "migrate status" fail saying how to mend it (set it, or
// delete it and migrate); it named the key and its value only, and the
// check's "see hopper migrate status" led nowhere.
func TestMigrateUnreadableLayoutKey(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "a")
	if err := e.rdb.Set(t.Context(), "{"+e.prefix+"}:layout", "abc", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r := e.migrate(t, "status")
	wantCode(t, r, 1, "migrate status with an unreadable layout key")
	wantOut(t, r.stderr, "migrate status with an unreadable layout key", `holds "abc"`, "redis-cli SET {"+e.prefix+"}:layout 1", "delete it")
}
