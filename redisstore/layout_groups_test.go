package redisstore_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/hopperq/hopper/storetest"
)

// layoutOneStore returns a store of this release on a prefix whose data
// has layout 1, as in a rolling deploy before `hopper migrate up`: it
// writes grouped jobs where releases of layout 1 read them, the sorted set
// of groups/store.lua.
func layoutOneStore(t *testing.T, rdb redis.UniversalClient, prefix string) *redisstore.Store {
	t.Helper()
	if err := rdb.Set(t.Context(), "{"+prefix+"}:layout", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	return storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
}

// TestConformanceLayoutOne runs the Store conformance suite on data of
// layout 1, where this release keeps grouped jobs in the sorted set that
// releases of layout 1 read.
func TestConformanceLayoutOne(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return layoutOneStore(t, rdb, redistest.Prefix(t))
	})
}

// groupedJobs returns n jobs of each group, IDs "<group><i>", the groups
// taking turns.
func groupedJobs(q string, n int, groups ...string) []*store.NewJob {
	var out []*store.NewJob
	for i := range n {
		for _, g := range groups {
			j := job(q, fmt.Sprintf("%s%d", g, i))
			j.Group = g
			out = append(out, j)
		}
	}
	return out
}

// groupKeys reports how many jobs the sorted set of layout 1 holds and how
// many group g's list holds.
func groupKeys(t *testing.T, rdb redis.UniversalClient, prefix, q, g string) (zset, list int64) {
	t.Helper()
	tag := "{" + prefix + ":" + q + "}:"
	z, err := rdb.ZCard(t.Context(), tag+"gz").Result()
	if err != nil {
		t.Fatal(err)
	}
	l, err := rdb.LLen(t.Context(), tag+"gz:"+g).Result()
	if err != nil {
		t.Fatal(err)
	}
	return z, l
}

// readyIDs lists queue q's ready jobs, oldest first or newest first.
func listedReady(t *testing.T, s *redisstore.Store, q string, newest bool) ([]string, int64) {
	t.Helper()
	var ids []string
	var total int64
	for off := 0; ; off += 3 {
		page, err := s.ListJobs(t.Context(), store.ListJobsOpts{Queue: q, State: store.StateReady, Offset: off, Limit: 3, Newest: newest})
		if err != nil {
			t.Fatal(err)
		}
		total = int64(page.Total)
		for _, j := range page.Jobs {
			ids = append(ids, j.ID)
		}
		if len(page.Jobs) < 3 {
			return ids, total
		}
	}
}

// TestMigrateMovesGroupedJobsToLists writes grouped jobs as a rolling
// deploy on layout 1 does, then migrates them to per-group lists a few
// jobs a call, with jobs enqueued and claimed between the calls: every
// group keeps its order at every step, none is lost, and the count and
// the listing agree throughout.
func TestMigrateMovesGroupedJobsToLists(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	s := layoutOneStore(t, rdb, prefix)
	ctx := t.Context()
	mustEnqueue(t, s, groupedJobs("q", 6, "a", "b", "c")...)
	if z, l := groupKeys(t, rdb, prefix, "q", "a"); z != 18 || l != 0 {
		t.Fatalf("on layout 1: %d jobs in the sorted set, %d in a's list; want 18 and 0", z, l)
	}
	ran := map[string][]string{}
	claim := func(n int) int {
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: n, Lease: 60e9})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range res.Jobs {
			ran[j.Group] = append(ran[j.Group], j.ID)
		}
		return len(res.Jobs)
	}
	claim(2)

	// Between the migration's calls: a new job in groups a and c, a
	// claim of two jobs, and the count against the listing.
	calls := 0
	defer redisstore.SetGroupsMoveBatch(4)()
	defer redisstore.SetMigrateHooks(func(q string) error {
		if q != "q" {
			return nil
		}
		calls++
		for _, g := range []string{"a", "c"} {
			j := job("q", fmt.Sprintf("%s-new%d", g, calls))
			j.Group = g
			mustEnqueue(t, s, j)
		}
		claim(2)
		st, err := s.GetQueueStats(ctx, "q")
		if err != nil {
			t.Fatal(err)
		}
		ids, total := listedReady(t, s, "q", false)
		if st.Counts.Ready != total || int64(len(ids)) != total {
			t.Fatalf("after move call %d: QueueStats says %d ready, the listing %d (%d listed)", calls, st.Counts.Ready, total, len(ids))
		}
		return nil
	}, nil)()
	rep, err := s.Migrate(ctx, redisstore.MigrateOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 3 {
		t.Fatalf("the move took %d calls past the first, want several (a batch of 4 of 16 jobs)", calls)
	}
	if rep.To != redisstore.LayoutVersion || len(rep.Steps) != 1 || len(rep.Steps[0].Changes) != 1 {
		t.Fatalf("Migrate: %+v; want step 1 -> 2 moving queue q's jobs", rep)
	}
	if z, l := groupKeys(t, rdb, prefix, "q", "a"); z != 0 || l == 0 {
		t.Fatalf("after the migration: %d jobs in the sorted set, %d in a's list; want none and some", z, l)
	}
	for claim(5) > 0 {
	}
	want := map[string][]string{}
	for i := range 6 {
		for _, g := range []string{"a", "b", "c"} {
			want[g] = append(want[g], fmt.Sprintf("%s%d", g, i))
		}
	}
	for i := 1; i <= calls; i++ {
		for _, g := range []string{"a", "c"} {
			want[g] = append(want[g], fmt.Sprintf("%s-new%d", g, i))
		}
	}
	for g, w := range want {
		if !slices.Equal(ran[g], w) {
			t.Errorf("group %s ran %v, want %v", g, ran[g], w)
		}
	}
	st, err := s.GetQueueStats(ctx, "q")
	if err != nil || st.Counts.Ready != 0 {
		t.Fatalf("after claiming everything: %+v, %v; want none ready", st.Counts, err)
	}
}

// TestGroupListsReadLayoutOneLeftovers: a queue that keeps its groups'
// jobs in lists still finds jobs in the sorted set of layout 1 (a
// producer of an older release pushed them after the migration), and
// takes them first: counted, listed both ways, deleted and claimed, none
// lost.
func TestGroupListsReadLayoutOneLeftovers(t *testing.T) {
	s, rdb, prefix := newPrefixedStore(t)
	ctx := t.Context()
	marks := "{" + prefix + ":q}:m"
	mustEnqueue(t, s, groupedJobs("q", 2, "a")...) // a0, a1 to a's list
	// As an older release's producer: to the sorted set.
	if err := rdb.HDel(ctx, marks, "gv").Err(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"old0", "old1"} {
		j := job("q", id)
		j.Group = "a"
		mustEnqueue(t, s, j)
	}
	if err := rdb.HSet(ctx, marks, "gv", "l").Err(); err != nil {
		t.Fatal(err)
	}
	if z, l := groupKeys(t, rdb, prefix, "q", "a"); z != 2 || l != 2 {
		t.Fatalf("%d jobs in the sorted set, %d in a's list; want 2 and 2", z, l)
	}
	want := []string{"old0", "old1", "a0", "a1"}
	if ids, total := listedReady(t, s, "q", false); total != 4 || !slices.Equal(ids, want) {
		t.Fatalf("listed %v of %d, want %v", ids, total, want)
	}
	if ids, _ := listedReady(t, s, "q", true); !slices.Equal(ids, []string{"a1", "a0", "old1", "old0"}) {
		t.Fatalf("listed newest first %v, want the reverse of %v", ids, want)
	}
	if n, err := s.DeleteJobs(ctx, "q", store.StateReady, []string{"old1", "a0"}); err != nil || n != 2 {
		t.Fatalf("DeleteJobs: %d, %v; want 2", n, err)
	}
	st, err := s.GetQueueStats(ctx, "q")
	if err != nil || st.Counts.Ready != 2 {
		t.Fatalf("QueueStats after deleting two of four: %+v, %v; want 2 ready", st.Counts, err)
	}
	claimIDs(t, s, 5, "old0", "a1")
	st, err = s.GetQueueStats(ctx, "q")
	if err != nil || st.Counts.Ready != 0 {
		t.Fatalf("QueueStats after claiming all: %+v, %v; want none ready", st.Counts, err)
	}
}

// TestHandedBackJobStaysFirstDuringMigration: a grouped job handed back
// (a worker's release, a lease run out) goes back to the head of its
// group while the group's older jobs are still in the sorted set of layout
// 1: it ran after every one of them, as it went to the front of the
// group's list, which reads take after the set.
func TestHandedBackJobStaysFirstDuringMigration(t *testing.T) {
	s, rdb, prefix := newPrefixedStore(t)
	ctx := t.Context()
	marks := "{" + prefix + ":q}:m"
	// a0 to the group's list; then, as layout 1 wrote them, o0..o3 to
	// the sorted set (older, in a migration's terms: read first).
	j := job("q", "a0")
	j.Group = "o"
	mustEnqueue(t, s, j)
	if err := rdb.HDel(ctx, marks, "gv").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, groupedJobs("q", 4, "o")...)
	if err := rdb.HSet(ctx, marks, "gv", "l").Err(); err != nil {
		t.Fatal(err)
	}
	if z, l := groupKeys(t, rdb, prefix, "q", "o"); z != 4 || l != 1 {
		t.Fatalf("%d jobs in the sorted set, %d in the group's list; want 4 and 1", z, l)
	}
	res := claimIDs(t, s, 1, "o0")
	mustFinish(t, s, store.AttemptEnd{Queue: "q", ID: "o0", Token: res.Jobs[0].Token, Outcome: store.OutcomeRelease})
	claimIDs(t, s, 5, "o0", "o1", "o2", "o3", "a0")
}

// TestForcedMigrationThatRanNothingIsNotForced: forced past an old
// worker on data of layout 1, Migrate stops before step 1 -> 2 having run
// nothing, and leaves no mark of a forced migration (the next status said
// "again: a migration was forced", and the next run "migrating again").
func TestForcedMigrationThatRanNothingIsNotForced(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	s := layoutOneStore(t, rdb, redistest.Prefix(t))
	ctx := t.Context()
	mustEnqueue(t, s, groupedJobs("q", 2, "a")...)
	if err := redisstore.HeartbeatAsOlder(ctx, s, store.WorkerInfo{ID: "old-1", Host: "box-a", PID: 7, Queues: map[string]int{"q": 1}, Concurrency: 1, StartedAt: time.Now()}, time.Minute); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Migrate(ctx, redisstore.MigrateOpts{Force: true})
	if !errors.Is(err, redisstore.ErrOldWorkers) || len(rep.Steps) != 0 || rep.To != 1 {
		t.Fatalf("forced Migrate of layout 1: %+v, %v; want ErrOldWorkers, no step run, layout 1", rep, err)
	}
	st, err := s.Layout(ctx)
	if err != nil || st.Forced || len(st.Pending) != 1 || st.Pending[0].From != 1 {
		t.Fatalf("Layout after a forced run that ran nothing: %+v, %v; want not Forced, step 1 -> 2 pending", st, err)
	}
}

// TestStoreLearnsLayoutTwoAfterStart: a store that started on data of
// layout 1 writes a new grouped queue to the sorted set; once another
// process migrated, it reads the layout again and marks the queues it
// registers from then on, so their jobs go to the lists (such a queue
// stayed on the sorted set, and no Migrate saw anything to do).
func TestStoreLearnsLayoutTwoAfterStart(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	early := layoutOneStore(t, rdb, prefix)
	ctx := t.Context()
	if err := early.Check(ctx); err != nil {
		t.Fatal(err)
	}
	admin := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	if _, err := admin.Migrate(ctx, redisstore.MigrateOpts{}); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, early, groupedJobs("late", 1, "a")...) // a0
	if z, l := groupKeys(t, rdb, prefix, "late", "a"); z != 1 || l != 0 {
		t.Fatalf("before the store reads the layout again: %d in the sorted set, %d in the list; want 1 and 0", z, l)
	}
	// A while later: the store reads the layout again, and registers its
	// queues again.
	redisstore.ExpirePartsRead(early)
	redisstore.ForgetRegistrations(early)
	j := job("late", "a1")
	j.Group = "a"
	mustEnqueue(t, early, j)
	if z, l := groupKeys(t, rdb, prefix, "late", "a"); z != 1 || l != 1 {
		t.Fatalf("after: %d in the sorted set, %d in the list; want 1 and 1", z, l)
	}
	res, err := early.Claim(ctx, store.ClaimOpts{Queue: "late", Max: 5, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 2 || res.Jobs[0].ID != "a0" || res.Jobs[1].ID != "a1" {
		t.Fatalf("claim: %+v, %v; want a0 then a1", res.Jobs, err)
	}
}
