package main

import (
	"fmt"
	"slices"
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

// current is the layout this release writes, as stored.
var current = strconv.Itoa(redisstore.LayoutVersion)

// layoutOneStore returns a store on the prefix whose layout key holds 1
// before its first call: it writes what releases of layout 1 (v0.1.0)
// read, as in a rolling deploy before "hopper migrate up": grouped jobs in
// the sorted set of layout 1, queues left unmarked (LAYOUT.md: g_ready,
// marks).
func (e *migrateEnv) layoutOneStore(t *testing.T) *redisstore.Store {
	t.Helper()
	if err := e.rdb.Set(t.Context(), "{"+e.prefix+"}:layout", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	return e.store()
}

// seedGrouped writes n ready jobs to queue q as a release of layout 1
// does, in the sorted set of layout 1, the groups taking turns: job i is
// "<q>-g<i>" of group groups[i%len(groups)]. It leaves the layout key at 1.
func (e *migrateEnv) seedGrouped(t *testing.T, q string, n int, groups ...string) {
	t.Helper()
	s := e.layoutOneStore(t)
	var jobs []*store.NewJob
	for i := range n {
		j := &store.NewJob{ID: fmt.Sprintf("%s-g%d", q, i), Queue: q, Kind: "k", Args: []byte("{}")}
		j.Group = groups[i%len(groups)]
		jobs = append(jobs, j)
	}
	if _, err := s.Enqueue(t.Context(), jobs); err != nil {
		t.Fatal(err)
	}
	if z := e.zsetLen(t, q); z != int64(n) {
		t.Fatalf("seeded %d grouped jobs in queue %s, the sorted set of layout 1 holds %d", n, q, z)
	}
}

// zsetLen returns how many jobs queue q's sorted set of layout 1 holds.
func (e *migrateEnv) zsetLen(t *testing.T, q string) int64 {
	t.Helper()
	n, err := e.rdb.ZCard(t.Context(), "{"+e.prefix+":"+q+"}:gz").Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// groupList returns the IDs in group g's list of queue q (layout 2),
// first to be claimed first.
func (e *migrateEnv) groupList(t *testing.T, q, g string) []string {
	t.Helper()
	ids, err := e.rdb.LRange(t.Context(), "{"+e.prefix+":"+q+"}:gz:"+g, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// listsMarked reports whether queue q pushes its grouped jobs to the
// groups' lists (its marks' gv, LAYOUT.md).
func (e *migrateEnv) listsMarked(t *testing.T, q string) bool {
	t.Helper()
	v, err := e.rdb.HGet(t.Context(), e.marks(q), "gv").Result()
	if err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	return v == "l"
}

// stepLines returns the lines "hopper migrate up" printed for step from
// -> from+1: those after its heading, up to the next step or the last
// line. It fails t when the step is not in out.
func stepLines(t *testing.T, out string, from int) []string {
	t.Helper()
	head := fmt.Sprintf("step %d -> %d: ", from, from+1)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, head) {
			continue
		}
		var body []string
		for _, b := range lines[i+1:] {
			if !strings.HasPrefix(b, "    ") {
				break
			}
			body = append(body, strings.TrimPrefix(b, "    "))
		}
		return body
	}
	t.Fatalf("no step %d -> %d in:\n%s", from, from+1, out)
	return nil
}

// wantStep fails t unless step from -> from+1 printed exactly want.
func wantStep(t *testing.T, out string, from int, want ...string) {
	t.Helper()
	if got := stepLines(t, out, from); !slices.Equal(got, want) {
		t.Errorf("step %d -> %d printed %q, want %q; in:\n%s", from, from+1, got, want, out)
	}
}

// rateTerms are the marks' fields a release before v0.1.0 did not write.
var rateTerms = []string{"rwin", "riv", "rtol", "gwin", "giv", "gtol", "rg", "rlead", "glead"}

// seedOld writes what a release before v0.1.0 leaves: a job in each of
// queues, their rate limits set without the terms this release derives
// (LAYOUT.md: the marks of {<prefix>:<queue>}), queues unmarked for the
// groups' lists of layout 2, and no layout key.
func (e *migrateEnv) seedOld(t *testing.T, queues ...string) {
	t.Helper()
	ctx := t.Context()
	s := e.layoutOneStore(t)
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
	wantOut(t, r.stdout, "migrate status on a fresh Redis", "no hopper data", "writes layout "+current+" at start", "none, the data is current", "old workers:      none alive")
	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up")
	wantOut(t, r.stdout, "migrate up on a fresh Redis", "nothing to do")
	if got := e.layout(t); got != current {
		t.Fatalf("layout after migrate up on a fresh Redis: %s, want %s", got, current)
	}
}

// TestMigrateUpLayoutZero migrates data of a release before v0.1.0 to
// the current layout: step 0 -> 1 writes the queues' settings again, then
// step 1 -> 2 moves the grouped queue's ready jobs to its groups' lists.
func TestMigrateUpLayoutZero(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedGrouped(t, "emails", 3, "acme", "globex")
	e.seedOld(t, "emails", "reports")
	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status")
	wantOut(t, r.stdout, "migrate status on layout 0", "stored layout:    0", "this release:     layout "+current+" (reads layouts 0 to "+current+")",
		"0 -> 1  rewrite the settings", "1 -> 2  keep the ready jobs of every grouped queue", "hopper migrate up")

	r = e.migrate(t, "up", "--dry-run")
	wantCode(t, r, 0, "migrate up --dry-run")
	wantOut(t, r.stdout, "dry run", "dry run, nothing is changed: layout 0 to "+current, "dry run: 2 step(s) would run; nothing was changed")
	wantStep(t, r.stdout, 0,
		"queue emails: would write its settings again with the rate terms of v0.1.0",
		"queue reports: would write its settings again with the rate terms of v0.1.0")
	wantStep(t, r.stdout, 1, "queue emails: would move 3 ready grouped jobs to their groups' lists")
	if e.migrated(t, "emails") || e.listsMarked(t, "emails") || e.zsetLen(t, "emails") != 3 || e.layout(t) != "(none)" {
		t.Fatal("the dry run changed the data")
	}

	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up")
	wantOut(t, r.stdout, "migrate up", "migrating: layout 0 to "+current, "done: the data is at layout "+current)
	wantStep(t, r.stdout, 0,
		"queue emails: settings written again with the rate terms of v0.1.0",
		"queue reports: settings written again with the rate terms of v0.1.0")
	wantStep(t, r.stdout, 1, "queue emails: moved 3 ready grouped jobs to their groups' lists")
	if i, j := strings.Index(r.stdout, "step 0 -> 1"), strings.Index(r.stdout, "step 1 -> 2"); i < 0 || j < i {
		t.Fatalf("migrate up ran the steps out of order:\n%s", r.stdout)
	}
	if !e.migrated(t, "emails") || !e.migrated(t, "reports") || e.layout(t) != current {
		t.Fatalf("after migrate up: want both queues migrated and layout %s", current)
	}
	// The groups' lists hold the grouped jobs in the order they were
	// enqueued (seedOld's emails-1 has no group).
	if z, a, g := e.zsetLen(t, "emails"), e.groupList(t, "emails", "acme"), e.groupList(t, "emails", "globex"); z != 0 ||
		!slices.Equal(a, []string{"emails-g0", "emails-g2"}) || !slices.Equal(g, []string{"emails-g1"}) {
		t.Fatalf("after migrate up: sorted set %d, acme %q, globex %q; want 0, [emails-g0 emails-g2], [emails-g1]", z, a, g)
	}

	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up again")
	wantOut(t, r.stdout, "migrate up again", "nothing to do: the data is at layout "+current+", current")
	if strings.Contains(r.stdout, "step") {
		t.Fatalf("a second run ran a step:\n%s", r.stdout)
	}
}

// TestMigrateUpLayoutOne is the upgrade from v0.1.0: a worker of v0.1.0
// (its record carries layout 1) holds the migration back; once it is
// gone, step 1 -> 2 alone runs and moves each grouped queue's ready jobs
// to its groups' lists, in order, and says nothing of a queue without
// grouped jobs. Jobs enqueued afterwards go to the lists' ends.
func TestMigrateUpLayoutOne(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedGrouped(t, "emails", 6, "acme", "globex")
	e.seedGrouped(t, "reports", 2, "acme")
	if _, err := e.layoutOneStore(t).Enqueue(t.Context(), []*store.NewJob{{ID: "plain-1", Queue: "plain", Kind: "k", Args: []byte("{}")}}); err != nil {
		t.Fatal(err)
	}
	rec, err := msgpack.Marshal(map[string]any{"i": "worker-7", "h": "box-a", "p": 4242, "lv": 1})
	if err != nil {
		t.Fatal(err)
	}
	e.liveWorker(t, "worker-7", func(nowMs int64) string { return strconv.FormatInt(nowMs, 10) + "," + string(rec) })

	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status on layout 1")
	wantOut(t, r.stdout, "migrate status on layout 1", "stored layout:    1\n", "this release:     layout "+current,
		"  1 -> 2  keep the ready jobs of every grouped queue in a list per group",
		"old workers:      1 alive", "  worker-7  host box-a  pid 4242  layout 1\n")
	if strings.Contains(r.stdout, "0 -> 1") {
		t.Fatalf("status on layout 1 lists step 0 -> 1:\n%s", r.stdout)
	}
	r = e.migrate(t, "up")
	wantCode(t, r, 1, "migrate up with a worker of v0.1.0")
	wantOut(t, r.stderr, "refusal", "worker-7 (host box-a, pid 4242, layout 1)", "--force")
	if e.listsMarked(t, "emails") || e.zsetLen(t, "emails") != 6 || e.layout(t) != "1" {
		t.Fatal("the refused migration changed the data")
	}
	tag := "{" + e.prefix + "}:"
	if err := e.rdb.ZRem(t.Context(), tag+"workers", "worker-7").Err(); err != nil {
		t.Fatal(err)
	}

	r = e.migrate(t, "up", "--dry-run")
	wantCode(t, r, 0, "migrate up --dry-run on layout 1")
	wantOut(t, r.stdout, "dry run on layout 1", "dry run, nothing is changed: layout 1 to "+current, "dry run: 1 step(s) would run; nothing was changed")
	wantStep(t, r.stdout, 1,
		"queue emails: would move 6 ready grouped jobs to their groups' lists",
		"queue reports: would move 2 ready grouped jobs to their groups' lists")
	if e.listsMarked(t, "emails") || e.zsetLen(t, "emails") != 6 || e.layout(t) != "1" {
		t.Fatal("the dry run changed the data")
	}

	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up on layout 1")
	wantOut(t, r.stdout, "migrate up on layout 1", "migrating: layout 1 to "+current, "done: the data is at layout "+current)
	wantStep(t, r.stdout, 1,
		"queue emails: moved 6 ready grouped jobs to their groups' lists",
		"queue reports: moved 2 ready grouped jobs to their groups' lists")
	if strings.Contains(r.stdout, "step 0 -> 1") {
		t.Fatalf("migrate up on layout 1 ran step 0 -> 1:\n%s", r.stdout)
	}
	if e.layout(t) != current {
		t.Fatalf("layout after migrate up: %s, want %s", e.layout(t), current)
	}
	for _, q := range []string{"emails", "reports", "plain"} {
		if !e.listsMarked(t, q) || e.zsetLen(t, q) != 0 {
			t.Fatalf("after migrate up, queue %s: marked %v, %d jobs in the sorted set; want marked, none", q, e.listsMarked(t, q), e.zsetLen(t, q))
		}
	}
	if a, g := e.groupList(t, "emails", "acme"), e.groupList(t, "emails", "globex"); !slices.Equal(a, []string{"emails-g0", "emails-g2", "emails-g4"}) ||
		!slices.Equal(g, []string{"emails-g1", "emails-g3", "emails-g5"}) {
		t.Fatalf("after migrate up: acme %q, globex %q; want each group's jobs in the order enqueued", a, g)
	}

	// A job enqueued now goes to the end of its group's list.
	j := &store.NewJob{ID: "emails-new", Queue: "emails", Kind: "k", Args: []byte("{}")}
	j.Group = "acme"
	if _, err := e.store().Enqueue(t.Context(), []*store.NewJob{j}); err != nil {
		t.Fatal(err)
	}
	if a := e.groupList(t, "emails", "acme"); e.zsetLen(t, "emails") != 0 || !slices.Equal(a, []string{"emails-g0", "emails-g2", "emails-g4", "emails-new"}) {
		t.Fatalf("a job enqueued after the migration: acme %q, sorted set %d; want it last in acme's list", a, e.zsetLen(t, "emails"))
	}

	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up again")
	wantOut(t, r.stdout, "migrate up again", "nothing to do: the data is at layout "+current+", current")
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
	wantOut(t, r.stdout, "resumed migrate up", "done: the data is at layout "+current)
	wantStep(t, r.stdout, 0, "queue b: settings written again with the rate terms of v0.1.0")
	wantStep(t, r.stdout, 1, "nothing to change")
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
	// Forced, it runs step 0 -> 1 and stops before 1 -> 2, which the old
	// worker would undo.
	r = e.migrate(t, "up", "--force")
	wantCode(t, r, 1, "migrate up --force")
	wantOut(t, r.stdout, "forced migrate up", "step 0 -> 1", "stopped: the data is at layout 1")
	wantOut(t, r.stderr, "forced migrate up", "old-worker", "step 1 -> 2 cannot be forced", "then run the migration again")
	if !e.migrated(t, "a") {
		t.Fatalf("migrate up --force left queue a unmigrated:\n%s%s", r.stdout, r.stderr)
	}

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
	wantOut(t, r.stdout, "status after a forced migration", "0 -> 1", "1 -> 2", "again", "none alive")
	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up once the old worker is gone")
	wantOut(t, r.stdout, "migrate up once the old worker is gone", "migrating again", "done: the data is at layout "+current)
	wantStep(t, r.stdout, 0, "queue a: settings written again with the rate terms of v0.1.0")
	wantStep(t, r.stdout, 1, "nothing to change")
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
	wantOut(t, r.stdout, "status of a newer layout", "stored layout:    7", "this release:     layout "+current, "(layout "+current+", ", "upgrade hopper")
	r = e.migrate(t, "up")
	wantCode(t, r, 1, "migrate up on a newer layout")
	wantOut(t, r.stderr, "refusal", "layout 7", "(layout "+current+", ", "upgrade hopper")
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
	e.seedGrouped(t, "q2", 3, "a", "b")
	e.seedGrouped(t, "q4", 2, "a")
	e.seedOld(t, queues...)
	r := e.migrate(t, "status")
	wantCode(t, r, 0, "migrate status on a cluster")
	wantOut(t, r.stdout, "status on a cluster", "stored layout:    0", "0 -> 1", "1 -> 2")
	r = e.migrate(t, "up")
	wantCode(t, r, 0, "migrate up on a cluster")
	for _, q := range queues {
		if !e.migrated(t, q) || !e.listsMarked(t, q) || e.zsetLen(t, q) != 0 {
			t.Fatalf("queue %s not migrated on the cluster:\n%s", q, r.stdout)
		}
	}
	wantStep(t, r.stdout, 1,
		"queue q2: moved 3 ready grouped jobs to their groups' lists",
		"queue q4: moved 2 ready grouped jobs to their groups' lists")
	if a := e.groupList(t, "q2", "a"); !slices.Equal(a, []string{"q2-g0", "q2-g2"}) {
		t.Fatalf("group a of q2 on the cluster: %q, want [q2-g0 q2-g2]", a)
	}
	if e.layout(t) != current {
		t.Fatalf("no layout %s stored on the cluster", current)
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
	wantCode(t, r, 1, "migrate up --force with an unreadable worker record")
	wantOut(t, r.stderr, "forced past an unreadable worker record", "bad (a record that does not decode)", "step 1 -> 2 cannot be forced")
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
	wantOut(t, r.stderr, "migrate status with an unreadable layout key", `holds "abc"`, "redis-cli SET {"+e.prefix+"}:layout "+current, "delete it")
}
