package redisstore_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// rateLimited is a queue setting with a rate limit, whose guard a
// release before v0.1.0 did not store.
var rateLimited = store.QueueConfig{RateLimit: 10, RatePeriod: time.Second, GroupRateLimit: 3, GroupRatePeriod: time.Second}

// seedLayoutZero makes the data under s's prefix what a release before
// v0.1.0 left: jobs and settings written through s, then the layout key
// removed and, for each of oldQueues, the rate terms this release derives
// dropped from the marks, as the older release wrote them.
func seedLayoutZero(t *testing.T, s *redisstore.Store, rdb redis.UniversalClient, oldQueues ...string) {
	t.Helper()
	ctx := t.Context()
	mustEnqueue(t, s, job("plain", "p1"))
	for _, q := range oldQueues {
		mustEnqueue(t, s, job(q, q+"-1"))
		if err := s.SetQueueConfig(ctx, q, rateLimited); err != nil {
			t.Fatal(err)
		}
		if err := rdb.HDel(ctx, redisstore.MarksKey(s, q), redisstore.RateTermFields...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Nor did it mark queues to keep their groups' jobs in lists.
	for _, q := range append(oldQueues, "plain") {
		if err := rdb.HDel(ctx, redisstore.MarksKey(s, q), "gv").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rdb.Del(ctx, redisstore.LayoutKey(s)).Err(); err != nil {
		t.Fatal(err)
	}
}

// current is the layout this release writes, as stored.
var current = strconv.Itoa(redisstore.LayoutVersion)

// hasGuard reports whether queue q's marks carry the claim guard this
// release derives from a rate limit.
func hasGuard(t *testing.T, s *redisstore.Store, rdb redis.UniversalClient, q string) bool {
	t.Helper()
	n, err := rdb.HExists(t.Context(), redisstore.MarksKey(s, q), "rg").Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// prefixedStore returns a store on the shared server with a prefix of its
// own, and the prefix.
func prefixedStore(t *testing.T) (*redisstore.Store, *redis.Client, string) {
	t.Helper()
	prefix := redistest.Prefix(t)
	s, rdb := newStore(t, &redisstore.Config{Prefix: prefix})
	return s, rdb, prefix
}

func storedLayout(t *testing.T, s *redisstore.Store, rdb redis.UniversalClient) string {
	t.Helper()
	v, err := rdb.Get(t.Context(), redisstore.LayoutKey(s)).Result()
	if errors.Is(err, redis.Nil) {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLayoutFreshRedisGetsCurrent(t *testing.T) {
	s, rdb := newStore(t, nil)
	st, err := s.Layout(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Fresh || st.Marked || st.Stored != redisstore.LayoutVersion || len(st.Pending) != 0 || st.Err != nil {
		t.Fatalf("Layout of an empty prefix: %+v, want fresh, current, nothing pending", st)
	}
	if got := storedLayout(t, s, rdb); got != "(none)" {
		t.Fatalf("Layout stored %s; it only reads", got)
	}
	mustEnqueue(t, s, job("q", "a"))
	if got := storedLayout(t, s, rdb); got != current {
		t.Fatalf("layout stored by the first call on a fresh Redis: %s, want %s", got, current)
	}
	st, err = s.Layout(t.Context())
	if err != nil || st.Fresh || !st.Marked || st.Stored != redisstore.LayoutVersion || len(st.Pending) != 0 {
		t.Fatalf("Layout after start: %+v, %v; want stored %s, nothing pending", st, err, current)
	}
}

// TestLayoutFreshWithPartitions: a store that declares partitioned
// queues on a fresh Redis (the check writes their counts first) stores
// the current layout and logs nothing about it.
func TestLayoutFreshWithPartitions(t *testing.T) {
	var logs logBuffer
	s, rdb := newStore(t, &redisstore.Config{Partitions: map[string]int{"hot": 2}, Logger: logs.logger()})
	mustEnqueue(t, s, job("hot", "a"))
	if got := storedLayout(t, s, rdb); got != current {
		t.Fatalf("layout stored on a fresh Redis with partitions: %s, want %s", got, current)
	}
	if out := logs.String(); strings.Contains(out, "layout") {
		t.Fatalf("log: %q, want nothing about the layout", out)
	}
}

func TestLayoutZeroRunsAndLogs(t *testing.T) {
	seed, rdb, prefix := prefixedStore(t)
	seedLayoutZero(t, seed, rdb, "limited")
	var logs logBuffer
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
	mustEnqueue(t, s, job("limited", "b"))
	if out := logs.String(); !strings.Contains(out, "layout 0") || !strings.Contains(out, "hopper migrate up") {
		t.Fatalf("log of a store on layout 0: %q, want a warning naming the layout and `hopper migrate up`", out)
	}
	if got := storedLayout(t, s, rdb); got != "(none)" {
		t.Fatalf("a store on layout 0 stored layout %s; only the migration does", got)
	}
	st, err := s.Layout(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Fresh || st.Marked || st.Stored != 0 || st.Err != nil || len(st.Pending) != 2 || st.Pending[0].From != 0 || st.Pending[0].To != 1 || st.Pending[1].To != 2 {
		t.Fatalf("Layout of layout-0 data: %+v, want stored 0, readable, steps 0->1 and 1->2 pending", st)
	}
}

func TestLayoutNewerRefused(t *testing.T) {
	s, rdb, prefix := prefixedStore(t)
	mustEnqueue(t, s, job("q", "a"))
	if err := rdb.Set(t.Context(), redisstore.LayoutKey(s), "3", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s = storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	for range 2 {
		_, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "b")})
		if !errors.Is(err, redisstore.ErrLayout) || redisstore.Temporary(err) {
			t.Fatalf("Enqueue on layout 3: %v, want a final ErrLayout", err)
		}
		for _, want := range []string{"layout 3", "layout 2", "upgrade hopper"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("refusal %q does not say %q", err, want)
			}
		}
	}
	if _, err := s.Migrate(t.Context(), redisstore.MigrateOpts{}); !errors.Is(err, redisstore.ErrLayout) {
		t.Fatalf("Migrate of layout 3: %v, want ErrLayout", err)
	}
}

// TestLayoutOlderRefusedUntilMigrated raises the oldest layout this
// release reads to 1, as a later release will: layout-0 data is refused
// with a message naming `hopper migrate`, and runs once migrated.
func TestLayoutOlderRefusedUntilMigrated(t *testing.T) {
	seed, rdb, prefix := prefixedStore(t)
	seedLayoutZero(t, seed, rdb, "limited")
	defer redisstore.SetOldestReadableLayout(1)()
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	_, err := s.Enqueue(t.Context(), []*store.NewJob{job("limited", "b")})
	if !errors.Is(err, redisstore.ErrLayout) || redisstore.Temporary(err) {
		t.Fatalf("Enqueue on layout 0 when 1 is the oldest read: %v, want a final ErrLayout", err)
	}
	for _, want := range []string{"layout 0", "layouts 1 to 2", "hopper migrate up", "hopper migrate status"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("refusal %q does not say %q", err, want)
		}
	}
	st, err := s.Layout(t.Context())
	if err != nil || !errors.Is(st.Err, redisstore.ErrLayout) || len(st.Pending) != 2 {
		t.Fatalf("Layout of refused data: %+v, %v; want the refusal and two steps pending", st, err)
	}
	rep, err := s.Migrate(t.Context(), redisstore.MigrateOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != 0 || rep.To != 2 || len(rep.Steps) != 2 || len(rep.Steps[0].Changes) != 1 || !strings.Contains(rep.Steps[0].Changes[0], "limited") {
		t.Fatalf("Migrate: %+v, want 0->2 rewriting queue limited", rep)
	}
	mustEnqueue(t, s, job("limited", "b"))
	if !hasGuard(t, s, rdb, "limited") {
		t.Fatal("the migrated queue's marks lack the claim guard")
	}
	cfg, err := s.GetQueueStats(t.Context(), "limited")
	if err != nil || cfg.Config != rateLimited || cfg.Counts.Ready != 2 {
		t.Fatalf("the migrated queue: %+v, %v; want its settings and both jobs kept", cfg, err)
	}
	// A new store runs on it too.
	if _, err := storeOn(t, rdb, &redisstore.Config{Prefix: prefix}).ListQueues(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateDryRunChangesNothing(t *testing.T) {
	s, rdb, prefix := prefixedStore(t)
	seedLayoutZero(t, s, rdb, "a", "b")
	before := dumpPrefix(t, rdb, prefix)
	var lines []string
	rep, err := s.Migrate(t.Context(), redisstore.MigrateOpts{DryRun: true, Progress: func(l string) { lines = append(lines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.DryRun || rep.To != 0 || len(rep.Steps) != 2 || len(rep.Steps[0].Changes) != 2 {
		t.Fatalf("dry run: %+v, want step 0->1 with two queues to rewrite, layout still 0", rep)
	}
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "step 0 -> 1") || !strings.Contains(got, "queue a: would") {
		t.Fatalf("dry run progress: %q", got)
	}
	if after := dumpPrefix(t, rdb, prefix); after != before {
		t.Fatalf("the dry run changed the data:\nbefore %s\nafter  %s", before, after)
	}
}

// dumpPrefix renders the keys under prefix with their DUMP, sorted.
func dumpPrefix(t *testing.T, rdb redis.UniversalClient, prefix string) string {
	t.Helper()
	keys, err := rdb.Keys(t.Context(), "{"+prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	slices.Sort(keys)
	for _, k := range keys {
		v, err := rdb.Dump(t.Context(), k).Result()
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(k + "=" + v + ";")
	}
	return b.String()
}

func TestMigrateResumesAfterInterruption(t *testing.T) {
	s, rdb := newStore(t, nil)
	seedLayoutZero(t, s, rdb, "a", "b")
	interrupt := errors.New("interrupted")
	restore := redisstore.SetMigrateHooks(func(string) error { return interrupt }, nil)
	_, err := s.Migrate(t.Context(), redisstore.MigrateOpts{})
	restore()
	if !errors.Is(err, interrupt) {
		t.Fatalf("Migrate with the hook: %v, want the interruption", err)
	}
	if got := storedLayout(t, s, rdb); got != "(none)" {
		t.Fatalf("an interrupted migration stored layout %s; the key is written last", got)
	}
	if !hasGuard(t, s, rdb, "a") || hasGuard(t, s, rdb, "b") {
		t.Fatal("after the interruption: want queue a migrated and b not yet")
	}
	rep, err := s.Migrate(t.Context(), redisstore.MigrateOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Steps[0].Changes; len(got) != 1 || !strings.Contains(got[0], "queue b") {
		t.Fatalf("the resumed run changed %q, want queue b only", got)
	}
	if !hasGuard(t, s, rdb, "b") || storedLayout(t, s, rdb) != current {
		t.Fatal("after the resumed run: want b migrated and the current layout stored")
	}
	rep, err = s.Migrate(t.Context(), redisstore.MigrateOpts{})
	if err != nil || !rep.AlreadyCurrent || len(rep.Steps) != 0 {
		t.Fatalf("a third run: %+v, %v; want nothing to do", rep, err)
	}
}

// TestMigrateKeepsConcurrentConfigChange changes a queue's settings
// between the migration's read and its write: the change is kept.
func TestMigrateKeepsConcurrentConfigChange(t *testing.T) {
	s, rdb := newStore(t, nil)
	seedLayoutZero(t, s, rdb, "a")
	changed := store.QueueConfig{RateLimit: 99, RatePeriod: time.Minute, Paused: true}
	once := false
	defer redisstore.SetMigrateHooks(nil, func(q string) {
		if !once {
			once = true
			if err := s.SetQueueConfig(context.Background(), q, changed); err != nil {
				t.Error(err)
			}
		}
	})()
	if _, err := s.Migrate(t.Context(), redisstore.MigrateOpts{}); err != nil {
		t.Fatal(err)
	}
	st, err := s.GetQueueStats(t.Context(), "a")
	if err != nil || st.Config != changed {
		t.Fatalf("settings after a change during the migration: %+v, %v; want %+v", st.Config, err, changed)
	}
	if !once {
		t.Fatal("the hook did not run")
	}
}

func TestMigrateRefusesOldWorkers(t *testing.T) {
	s, rdb := newStore(t, nil)
	seedLayoutZero(t, s, rdb, "a")
	ctx := t.Context()
	if err := redisstore.HeartbeatAsOlder(ctx, s, store.WorkerInfo{ID: "old-1", Host: "box-a", PID: 7, Queues: map[string]int{"a": 1}, Concurrency: 1, StartedAt: time.Now()}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Heartbeat(ctx, store.WorkerInfo{ID: "new-1", Host: "box-b", PID: 8, Queues: map[string]int{"a": 1}, Concurrency: 1, StartedAt: time.Now()}, time.Minute); err != nil {
		t.Fatal(err)
	}
	st, err := s.Layout(ctx)
	if err != nil || len(st.OldWorkers) != 1 || st.OldWorkers[0].ID != "old-1" || st.OldWorkers[0].Host != "box-a" {
		t.Fatalf("Layout: %+v, %v; want old worker old-1 on box-a only", st, err)
	}
	_, err = s.Migrate(ctx, redisstore.MigrateOpts{})
	if !errors.Is(err, redisstore.ErrOldWorkers) || !strings.Contains(err.Error(), "old-1") || !strings.Contains(err.Error(), "box-a") || strings.Contains(err.Error(), "new-1") {
		t.Fatalf("Migrate with an old worker alive: %v, want ErrOldWorkers naming old-1 on box-a", err)
	}
	if hasGuard(t, s, rdb, "a") || storedLayout(t, s, rdb) != "(none)" {
		t.Fatal("the refused migration changed data")
	}
	// Forced, the steps run up to 1 -> 2, which workers of layout 1 would
	// undo: it waits for them.
	rep, err := s.Migrate(ctx, redisstore.MigrateOpts{Force: true})
	if !errors.Is(err, redisstore.ErrOldWorkers) || !strings.Contains(err.Error(), "step 1 -> 2 cannot be forced") || !strings.Contains(err.Error(), "old-1") {
		t.Fatalf("forced Migrate: %v, want ErrOldWorkers saying step 1 -> 2 cannot be forced past old-1", err)
	}
	if rep.To != 1 || len(rep.Steps) != 1 || !hasGuard(t, s, rdb, "a") || storedLayout(t, s, rdb) != "1" {
		t.Fatalf("forced Migrate: %+v; want step 0 -> 1 run, queue a migrated, layout 1 stored", rep)
	}

	// The old worker writes queue a's settings in its layout after the
	// forced migration, then stops: its steps are still pending, and the
	// next Migrate runs them again. (Migrate said "run it again once they
	// are gone", then found nothing to do: a stayed without its guard.)
	if err := rdb.HDel(ctx, redisstore.MarksKey(s, "a"), redisstore.RateTermFields...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZRem(ctx, redisstore.WorkersKey(s), "old-1").Err(); err != nil {
		t.Fatal(err)
	}
	st, err = s.Layout(ctx)
	if err != nil || !st.Forced || len(st.Pending) != 2 || st.Pending[0].From != 0 || len(st.OldWorkers) != 0 {
		t.Fatalf("Layout after a forced migration: %+v, %v; want Forced, step 0 -> 1 pending, no old worker", st, err)
	}
	rep, err = s.Migrate(ctx, redisstore.MigrateOpts{})
	if err != nil || rep.AlreadyCurrent || len(rep.Steps) != 2 || !hasGuard(t, s, rdb, "a") || storedLayout(t, s, rdb) != current {
		t.Fatalf("Migrate once the old worker is gone: %+v, %v; want steps 0 -> 2 run again, queue a migrated, layout %s", rep, err, current)
	}
	st, err = s.Layout(ctx)
	if err != nil || st.Forced || len(st.Pending) != 0 {
		t.Fatalf("Layout after the migration ran with no old worker: %+v, %v; want nothing pending", st, err)
	}
	if rep, err := s.Migrate(ctx, redisstore.MigrateOpts{}); err != nil || !rep.AlreadyCurrent {
		t.Fatalf("Migrate again: %+v, %v; want nothing to do", rep, err)
	}
}

// TestLayoutCluster runs the check and the migration on a Redis Cluster,
// with queues on several masters.
func TestLayoutCluster(t *testing.T) {
	rdb := redistest.StartCluster(t).Client(t)
	s := storeOn(t, rdb, nil)
	queues := []string{"c1", "c2", "c3", "c4", "c5", "c6"}
	seedLayoutZero(t, s, rdb, queues...)
	st, err := s.Layout(t.Context())
	if err != nil || st.Fresh || st.Stored != 0 || len(st.Pending) != 2 {
		t.Fatalf("Layout on the cluster: %+v, %v; want layout 0 with two steps pending", st, err)
	}
	rep, err := s.Migrate(t.Context(), redisstore.MigrateOpts{})
	if err != nil || rep.To != 2 || len(rep.Steps[0].Changes) != len(queues) {
		t.Fatalf("Migrate on the cluster: %+v, %v; want every queue rewritten", rep, err)
	}
	for _, q := range queues {
		if !hasGuard(t, s, rdb, q) {
			t.Fatalf("queue %s not migrated", q)
		}
	}
	// A fresh prefix on the cluster gets the current layout.
	fresh := storeOn(t, rdb, nil)
	mustEnqueue(t, fresh, job("q", "a"))
	if got := storedLayout(t, fresh, rdb); got != current {
		t.Fatalf("fresh prefix on the cluster: layout %s, want %s", got, current)
	}
}

// TestMigratePartitions migrates a partitioned queue whose group rate an
// older release set: every partition gets the terms.
func TestMigratePartitions(t *testing.T) {
	prefix := redistest.Prefix(t)
	cfg := &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"hot": 3}}
	s, rdb := newStore(t, cfg)
	ctx := t.Context()
	mustEnqueue(t, s, job("hot", "h1"))
	groupRate := store.QueueConfig{GroupRateLimit: 4, GroupRatePeriod: time.Second}
	if err := s.SetQueueConfig(ctx, "hot", groupRate); err != nil {
		t.Fatal(err)
	}
	parts, err := s.Partitions(ctx, "hot")
	if err != nil || len(parts) != 3 {
		t.Fatalf("Partitions: %v, %v", parts, err)
	}
	for _, p := range parts {
		if err := rdb.HDel(ctx, redisstore.MarksKey(s, p), redisstore.RateTermFields...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rdb.Del(ctx, redisstore.LayoutKey(s)).Err(); err != nil {
		t.Fatal(err)
	}
	s = storeOn(t, rdb, cfg)
	rep, err := s.Migrate(ctx, redisstore.MigrateOpts{})
	if err != nil || len(rep.Steps) != 2 || len(rep.Steps[0].Changes) != 3 {
		t.Fatalf("Migrate: %+v, %v; want the three partitions rewritten", rep, err)
	}
	for _, p := range parts {
		if !hasGuard(t, s, rdb, p) {
			t.Fatalf("partition %s not migrated", p)
		}
	}
	st, err := s.GetQueueStats(ctx, "hot")
	if err != nil || st.Config != groupRate {
		t.Fatalf("the partitioned queue's settings: %+v, %v; want %+v", st.Config, err, groupRate)
	}
}
