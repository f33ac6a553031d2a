package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func groupCases() []adminCase {
	return []adminCase{
		{name: "RoundRobin", fn: testGroupRoundRobin},
		{name: "RoundRobinInOneClaim", fn: testGroupRoundRobinBatch},
		{name: "ThinGroupsWidenTheTurn", fn: testGroupThinWiden},
		{name: "UngroupedTakeATurn", fn: testGroupUngrouped},
		{name: "ClaimsFillTheirMax", fn: testGroupClaimsFillMax},
		{name: "CapOfOne", fn: testGroupCapOne},
		{name: "CapOfThree", fn: testGroupCapThree},
		{name: "CapRaisedAtRunTime", fn: testGroupCapRaised},
		{name: "CapSetWhileRunning", fn: testGroupCapSetWhileRunning},
		{name: "ExpiredLeaseFreesTheGroup", fn: testGroupExpiredLease},
		{name: "ExpiredLeaseKeepsItsPlace", fn: testGroupExpiredLeasePlace},
		{name: "ReleaseAndRetryFreeTheGroup", fn: testGroupReleaseRetry},
		{name: "ListStatsCancelDelete", fn: testGroupListStats},
		{name: "RateLimitPerGroup", fn: testGroupRateLimit},
		{name: "RateLimitWindowSlides", fn: testGroupRateWindow},
		{name: "HoldOfOneGroup", fn: testGroupHold},
		{name: "Invalid", fn: testGroupInvalid},
	}
}

// groupLimitFunc is a GroupLimits case: the store as a store.Store, its
// store.Groups and its store.Admin.
type groupLimitFunc = func(t *testing.T, s store.Store, g store.Groups, a store.Admin)

func groupLimitCases() []testCase[groupLimitFunc] {
	return []testCase[groupLimitFunc]{
		{name: "OwnLimit", fn: testGroupOwnLimit},
		{name: "HoldListed", fn: testGroupHoldListed},
	}
}

// grouped returns job(q, id) in group g.
func grouped(q, id, g string) *store.NewJob {
	j := job(q, id)
	j.Group = g
	return j
}

// addGroups enqueues, group after group, n[i] jobs of group gs[i] named
// "<group><k>" (k from 1).
func addGroups(t *testing.T, s store.Store, q string, gs []string, n []int) {
	t.Helper()
	for i, g := range gs {
		for k := 1; k <= n[i]; k++ {
			add(t, s, grouped(q, g+string(rune('0'+k)), g))
		}
	}
}

// claimIDs claims jobs from q, max at a time, until a claim returns none,
// and returns their IDs in order.
func claimIDs(t *testing.T, s store.Store, q string, max int) []string {
	t.Helper()
	var out []string
	for {
		res := claim(t, s, q, max, long)
		if len(res.Jobs) == 0 {
			return out
		}
		out = append(out, ids(res.Jobs)...)
	}
}

// requireClaims fails unless one claim from q of at most max jobs takes
// want, in any order (the jobs of one claim start together), and returns
// them sorted by ID.
func requireClaims(t *testing.T, s store.Store, q string, max int, want []string, why string) []*store.JobRecord {
	t.Helper()
	res := claim(t, s, q, max, long)
	slices.SortFunc(res.Jobs, func(a, b *store.JobRecord) int { return strings.Compare(a.ID, b.ID) })
	want = slices.Sorted(slices.Values(want))
	if got := ids(res.Jobs); !slices.Equal(got, want) {
		t.Fatalf("Claim(%q, Max %d) %s: took %v, want %v (in any order)", q, max, why, got, want)
	}
	return res.Jobs
}

func testGroupRoundRobin(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	addGroups(t, s, q, []string{"a", "b", "c"}, []int{6, 2, 2})
	got := claimIDs(t, s, q, 1)
	if want := []string{"a1", "b1", "c1", "a2", "b2", "c2", "a3", "a4", "a5", "a6"}; !slices.Equal(got, want) {
		t.Fatalf("claims one at a time took %v, want one job of each group in turn, %v", got, want)
	}
}

func testGroupRoundRobinBatch(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	addGroups(t, s, q, []string{"a", "b", "c"}, []int{6, 2, 2})
	// A claim shares what it wants among ceil(n/4) members of the rotation
	// at a time: up to 4 jobs of a group per turn.
	requireClaims(t, s, q, 7, []string{"a1", "a2", "a3", "a4", "b1", "b2", "c1"}, "over three groups, up to 4 a turn")
	requireClaims(t, s, q, 7, []string{"a5", "a6", "c2"}, "with the rest of a and c")
	if j := getJob(t, a, q, "b1"); j.Group != "b" {
		t.Fatalf("GetJob(b1).Group = %q, want b", j.Group)
	}
}

func testGroupThinWiden(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	addGroups(t, s, q, []string{"s", "t", "a", "b", "c", "d"}, []int{1, 1, 5, 5, 5, 5})
	// The first turn visits ceil(8/4) groups, s and t, which give one job
	// each; the next turn then visits as many groups as it wants jobs, at
	// what a group gave in the last (6 / 1: all four left), sharing the 6
	// among them, 2 each until the claim is full: d, not reached, keeps
	// its turn first.
	requireClaims(t, s, q, 8, []string{"s1", "t1", "a1", "a2", "b1", "b2", "c1", "c2"}, "over two thin groups and four others")
	// d first, then a (which has 3 left); a gave fewer than its share, so
	// the claim's second turn visits the next group, b, for the last job.
	requireClaims(t, s, q, 8, []string{"d1", "d2", "d3", "d4", "a3", "a4", "a5", "b3"}, "from the group the last claim had no room for")
}

func testGroupUngrouped(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	// Ungrouped jobs first, then a group: the ungrouped ones take their
	// turn in the rotation as one more group (claims of 2: a turn each).
	add(t, s, job(q, "p1"), job(q, "p2"), job(q, "p3"))
	addGroups(t, s, q, []string{"a"}, []int{3})
	got := claimIDs(t, s, q, 2)
	if want := []string{"p1", "p2", "a1", "a2", "p3", "a3"}; !slices.Equal(got, want) {
		t.Fatalf("claims of 2 took %v, want the ungrouped jobs and group a in turn, %v", got, want)
	}
}

func testGroupCapOne(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 1})
	addGroups(t, s, q, []string{"a", "b"}, []int{3, 2})
	jobs := requireClaims(t, s, q, 10, []string{"a1", "b1"}, "with a cap of 1 per group")
	claimNone(t, s, q, "every group runs its one job")
	finishOK(t, s, outcome(jobs[0], store.OutcomeAck)) // a1
	a2 := requireClaims(t, s, q, 10, []string{"a2"}, "after a1 was acked")
	finishOK(t, s, outcome(jobs[1], store.OutcomeAck))
	finishOK(t, s, outcome(a2[0], store.OutcomeAck))
	requireClaims(t, s, q, 10, []string{"b2", "a3"}, "after b1 and a2 were acked")
}

func testGroupCapThree(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 3})
	addGroups(t, s, q, []string{"a"}, []int{5})
	jobs := requireClaims(t, s, q, 10, []string{"a1", "a2", "a3"}, "with a cap of 3 per group")
	claimNone(t, s, q, "the group runs 3")
	finishOK(t, s, outcome(jobs[1], store.OutcomeAck))
	requireClaims(t, s, q, 10, []string{"a4"}, "after one of the 3 was acked")
}

func testGroupCapRaised(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 1})
	addGroups(t, s, q, []string{"a"}, []int{3})
	requireClaims(t, s, q, 10, []string{"a1"}, "with a cap of 1")
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 2})
	requireClaims(t, s, q, 10, []string{"a2"}, "once the cap is 2, with nothing finished")
	setQueueConfig(t, a, q, store.QueueConfig{})
	requireClaims(t, s, q, 10, []string{"a3"}, "once the cap is gone")
}

func testGroupCapSetWhileRunning(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	addGroups(t, s, q, []string{"a"}, []int{4})
	jobs := requireClaims(t, s, q, 2, []string{"a1", "a2"}, "without a cap")
	// A cap that comes while two of the group's jobs run counts them.
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 2})
	claimNone(t, s, q, "group a already runs 2, its new cap")
	finishOK(t, s, outcome(jobs[0], store.OutcomeAck))
	requireClaims(t, s, q, 10, []string{"a3"}, "after one of the two was acked")
}

func testGroupOwnLimit(t *testing.T, s store.Store, g store.Groups, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 1})
	if err := g.SetGroupLimit(t.Context(), q, "vip", 2); err != nil {
		t.Fatal(err)
	}
	addGroups(t, s, q, []string{"vip", "std"}, []int{3, 3})
	requireClaims(t, s, q, 10, []string{"vip1", "std1", "vip2"}, "vip has a cap of 2 of its own, std the queue's 1")
	got, err := g.ListGroups(t.Context(), q, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.GroupStats{{Group: "std", Ready: 2, Running: 1, Limit: 1}, {Group: "vip", Ready: 1, Running: 2, Limit: 2, Own: true}}
	if !slices.Equal(got, want) {
		t.Fatalf("Groups = %+v, want %+v", got, want)
	}
	// Without any cap the running counts are still reported.
	q2 := newQueue(t)
	addGroups(t, s, q2, []string{"x"}, []int{3})
	claim(t, s, q2, 2, long)
	if got, err := g.ListGroups(t.Context(), q2, 0); err != nil || !slices.Equal(got, []store.GroupStats{{Group: "x", Ready: 1, Running: 2}}) {
		t.Fatalf("Groups of a queue without caps = %+v, %v; want x with 1 ready and 2 running", got, err)
	}
	if got, _ := g.ListGroups(t.Context(), q, 1); len(got) != 1 || got[0].Group != "std" {
		t.Fatalf("Groups with limit 1 = %+v, want std alone (sorted by name)", got)
	}
	if err := g.SetGroupLimit(t.Context(), q, "std", 3); err != nil {
		t.Fatal(err)
	}
	requireClaims(t, s, q, 10, []string{"std2", "std3"}, "std's own cap of 3 wakes it")
	if err := g.SetGroupLimit(t.Context(), q, "vip", 0); err != nil {
		t.Fatal(err)
	}
	got, _ = g.ListGroups(t.Context(), q, 0)
	if i := slices.IndexFunc(got, func(s store.GroupStats) bool { return s.Group == "vip" }); i < 0 || got[i].Own || got[i].Limit != 1 {
		t.Fatalf("Groups after vip's cap was removed = %+v, want vip at the queue's cap of 1", got)
	}
	for _, bad := range []struct {
		group string
		limit int
	}{{"", 1}, {"a b", 1}, {"a,b", 1}, {"ok", -1}} {
		if err := g.SetGroupLimit(t.Context(), q, bad.group, bad.limit); !errors.Is(err, store.ErrInvalidConfig) {
			t.Fatalf("SetGroupLimit(%q, %d): %v, want ErrInvalidConfig", bad.group, bad.limit, err)
		}
	}
}

// capOneWithRetries makes q a queue with a cap of 1 per group holding
// a1 (3 retries) and a2, both of group a.
func capOneWithRetries(t *testing.T, s store.Store, a store.Admin, q string) {
	t.Helper()
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 1})
	j := withRetries(q, "a1", 3)
	j.Group = "a"
	add(t, s, j, grouped(q, "a2", "a"))
}

func testGroupExpiredLease(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	capOneWithRetries(t, s, a, q)
	res := claim(t, s, q, 10, 50*time.Millisecond)
	if got := ids(res.Jobs); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("first claim took %v, want a1 alone (cap 1)", got)
	}
	awaitReclaim(t, s, q)
	// The group's slot is free again: one of its jobs runs.
	if c := claimWhenDue(t, s, q, long); c.Group != "a" {
		t.Fatalf("claim after the lease expired: %q of group %q, want a job of group a", c.ID, c.Group)
	}
	claimNone(t, s, q, "group a runs one job again")
}

// testGroupExpiredLeasePlace: jobs whose leases expire come back at the
// head of their group, in their order, before the group's later jobs.
func testGroupExpiredLeasePlace(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{GroupMaxRunning: 2})
	first := []*store.NewJob{withRetries(q, "a1", 3), withRetries(q, "a2", 3)}
	for _, j := range first {
		j.Group = "a"
	}
	add(t, s, first...)
	add(t, s, grouped(q, "a3", "a"), grouped(q, "a4", "a"))
	if got := ids(claim(t, s, q, 10, 50*time.Millisecond).Jobs); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Fatalf("first claim took %v, want [a1 a2] (cap 2)", got)
	}
	awaitReclaim(t, s, q)
	again := claim(t, s, q, 10, long).Jobs
	if got := ids(again); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Fatalf("claim after both leases expired took %v, want [a1 a2]: redelivered before a3 and a4, in order", got)
	}
	finishOK(t, s, outcome(again[0], store.OutcomeAck), outcome(again[1], store.OutcomeAck))
	if got := ids(claim(t, s, q, 10, long).Jobs); !slices.Equal(got, []string{"a3", "a4"}) {
		t.Fatalf("claim after a1 and a2 were acked took %v, want [a3 a4]", got)
	}
}

func testGroupReleaseRetry(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	capOneWithRetries(t, s, a, q)
	c := requireClaims(t, s, q, 10, []string{"a1"}, "cap 1")
	finishOK(t, s, outcome(c[0], store.OutcomeRelease))
	// Released to the front of its group.
	c = requireClaims(t, s, q, 10, []string{"a1"}, "after a1 was released")
	finishOK(t, s, failed(c[0], store.OutcomeRetry, "boom", long))
	requireClaims(t, s, q, 10, []string{"a2"}, "after a1 went to retry")
	if j := requireState(t, a, q, "a1", store.StateRetry); j.Group != "a" {
		t.Fatalf("a1 in retry has Group %q, want a", j.Group)
	}
}

func testGroupListStats(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "p1"))
	addGroups(t, s, q, []string{"b", "a"}, []int{2, 2})
	page := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 100})
	if want := []string{"p1", "a1", "a2", "b1", "b2"}; !slices.Equal(ids(page.Jobs), want) || page.Total != 5 {
		t.Fatalf("ListJobs of ready: %v (total %d), want the ungrouped then each group by name, %v (total 5)", ids(page.Jobs), page.Total, want)
	}
	p := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Offset: 2, Limit: 2, Newest: true})
	if want := []string{"a2", "a1"}; !slices.Equal(ids(p.Jobs), want) {
		t.Fatalf("ListJobs of ready, newest first, offset 2: %v, want %v", ids(p.Jobs), want)
	}
	if st := stats(t, a, q); st.Counts.Ready != 5 {
		t.Fatalf("QueueStats Ready = %d, want 5 with grouped jobs", st.Counts.Ready)
	}
	cancel(t, a, q, "a1", store.StateReady)
	if n, err := a.DeleteJobs(t.Context(), q, store.StateReady, []string{"b2"}); err != nil || n != 1 {
		t.Fatalf("Delete(b2): %d, %v; want 1, nil", n, err)
	}
	if st := stats(t, a, q); st.Counts.Ready != 3 || st.Counts.Garbage != 1 {
		t.Fatalf("QueueStats after cancelling a1 and deleting b2: Ready %d, Garbage %d; want 3 and 1", st.Counts.Ready, st.Counts.Garbage)
	}
	requireClaims(t, s, q, 10, []string{"p1", "b1", "a2"}, "after cancelling a1 and deleting b2")
	if st := stats(t, a, q); st.Counts.Ready != 0 || st.Counts.Unack != 3 {
		t.Fatalf("QueueStats with every ready job claimed: Ready %d, Unack %d; want 0 and 3", st.Counts.Ready, st.Counts.Unack)
	}
	addGroups(t, s, q, []string{"c"}, []int{3})
	add(t, s, job(q, "p2"))
	if n, err := a.DeleteJobs(t.Context(), q, store.StateReady, nil); err != nil || n != 4 {
		t.Fatalf("Delete of all ready: %d, %v; want 4 (three grouped, one not)", n, err)
	}
	claimNone(t, s, q, "every ready job was deleted")
	if st := stats(t, a, q); st.Counts.Ready != 0 {
		t.Fatalf("QueueStats Ready = %d after deleting them all, want 0", st.Counts.Ready)
	}
}

func testGroupInvalid(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	prio := grouped(q, "x", "a")
	prio.Priority = 1
	for _, j := range []*store.NewJob{grouped(q, "x", "a b"), grouped(q, "x", "a,b"), grouped(q, "x", strings.Repeat("g", store.MaxGroupLen+1)), prio} {
		if _, err := s.Enqueue(t.Context(), []*store.NewJob{j}); !errors.Is(err, store.ErrInvalidJob) {
			t.Fatalf("Enqueue with Group %q and Priority %d: %v, want ErrInvalidJob", j.Group, j.Priority, err)
		}
	}
	requireNotFound(t, a, q, "x", "no invalid job is stored")
	if _, err := (store.QueueConfig{GroupMaxRunning: -1}).Normalize(); !errors.Is(err, store.ErrInvalidConfig) {
		t.Fatalf("QueueConfig{GroupMaxRunning: -1}.Normalize(): %v, want ErrInvalidConfig", err)
	}
}

func testGroupRateLimit(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{GroupRateLimit: 2, GroupRatePeriod: time.Hour})
	add(t, s, job(q, "p1"))
	addGroups(t, s, q, []string{"a", "b"}, []int{5, 5})
	requireClaims(t, s, q, 10, []string{"p1", "a1", "a2", "b1", "b2"}, "two per group per hour")
	res := claimNone(t, s, q, "both groups used their two claims of the hour")
	if res.RetryIn < 50*time.Minute || res.RetryIn > time.Hour+time.Second {
		t.Fatalf("RetryIn with both groups at their rate limit: %v, want about an hour (when their window frees)", res.RetryIn)
	}
	add(t, s, job(q, "p2"), grouped(q, "c1", "c"))
	requireClaims(t, s, q, 10, []string{"p2", "c1"}, "the ungrouped jobs and another group are not held back")
}

func testGroupRateWindow(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	cfg := store.QueueConfig{GroupRateLimit: 1, GroupRatePeriod: 100 * time.Millisecond}
	setQueueConfig(t, a, q, cfg)
	addGroups(t, s, q, []string{"a"}, []int{3})
	requireClaims(t, s, q, 10, []string{"a1"}, "one per 100ms")
	if res := claim(t, s, q, 10, long); len(res.Jobs) == 0 && (res.RetryIn <= 0 || res.RetryIn > cfg.GroupRate().Window) {
		t.Fatalf("RetryIn with the group at its rate limit: %v, want at most %v (the period and its guard)", res.RetryIn, cfg.GroupRate().Window)
	} else if len(res.Jobs) > 0 && res.Jobs[0].ID != "a2" {
		t.Fatalf("claim right after: %v, want none or a2 once the window moved", ids(res.Jobs))
	}
	// The window slides: every job runs in time, one per window.
	got := claimWhenDue(t, s, q, long)
	if got.ID != "a2" && got.ID != "a3" {
		t.Fatalf("claim once the window moved: %q, want a2 or a3", got.ID)
	}
}

func testGroupHold(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	addGroups(t, s, q, []string{"a"}, []int{2})
	add(t, s, grouped(q, "b1", "b"))
	c := requireClaims(t, s, q, 1, []string{"a1"}, "the first group's first job")
	r := outcome(c[0], store.OutcomeSnooze)
	r.Delay, r.Hold = long, time.Hour
	finishOK(t, s, r)
	requireClaims(t, s, q, 10, []string{"b1"}, "group a is held for an hour, b is not")
	res := claimNone(t, s, q, "group a is held")
	if res.RetryIn < 50*time.Minute || res.RetryIn > time.Hour+time.Second {
		t.Fatalf("RetryIn with group a held: %v, want about an hour", res.RetryIn)
	}
	if st := stats(t, a, q); !st.HeldUntil.IsZero() {
		t.Fatalf("QueueStats.HeldUntil = %v after a grouped job's hold, want zero (its group alone is held)", st.HeldUntil)
	}
}

// testGroupHoldListed: a group a handler held (RateLimited) is listed
// with the hold's end, even with no job ready or running (its one job
// snoozed); a group not held has none.
func testGroupHoldListed(t *testing.T, s store.Store, g store.Groups, a store.Admin) {
	q := newQueue(t)
	addGroups(t, s, q, []string{"a", "b", "c"}, []int{1, 1, 1})
	before := time.Now()
	c := requireClaims(t, s, q, 3, []string{"a1", "b1", "c1"}, "a job of each group")
	add(t, s, grouped(q, "a2", "a"))
	ra, rc := outcome(c[0], store.OutcomeSnooze), outcome(c[2], store.OutcomeSnooze)
	ra.Delay, ra.Hold = long, time.Hour
	rc.Delay, rc.Hold = long, 30*time.Minute
	finishOK(t, s, ra, outcome(c[1], store.OutcomeAck), rc)
	after := time.Now()
	got, err := g.ListGroups(t.Context(), q, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Group != "a" || got[1].Group != "c" || got[0].Ready != 1 || got[1].Ready != 0 || got[1].Running != 0 {
		t.Fatalf("Groups = %+v, want a (1 ready) and c (none ready or running, held)", got)
	}
	for i, hold := range []time.Duration{time.Hour, 30 * time.Minute} {
		// The stores count in ms, rounded up.
		if h := got[i].HeldUntil; h.Before(before.Add(hold).Truncate(time.Millisecond)) || h.After(after.Add(hold+time.Second)) {
			t.Errorf("group %s HeldUntil = %v, want %v after the snooze (between %v and %v)", got[i].Group, h, hold, before, after)
		}
	}
	add(t, s, grouped(q, "b2", "b"))
	if got, _ := g.ListGroups(t.Context(), q, 0); len(got) != 3 || got[1].Group != "b" || !got[1].HeldUntil.IsZero() {
		t.Fatalf("Groups = %+v, want b listed without a hold", got)
	}
}

func testGroupClaimsFillMax(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	gs := make([]string, 10)
	counts := make([]int, 10)
	for i := range gs {
		gs[i], counts[i] = string(rune('a'+i)), 9
	}
	addGroups(t, s, q, gs, counts)
	add(t, s, job(q, "p1"), job(q, "p2"))
	// Claims of every size from 1 to 13 in turn: each takes exactly its
	// Max while enough jobs are ready (never more), and together all.
	left, seen := 92, map[string]bool{}
	for i := 0; left > 0; i++ {
		max := 1 + i%13
		res := claim(t, s, q, max, long)
		if want := min(max, left); len(res.Jobs) != want {
			t.Fatalf("claim %d of Max %d with %d ready took %d jobs, want %d", i, max, left, len(res.Jobs), want)
		}
		for _, j := range res.Jobs {
			if seen[j.ID] {
				t.Fatalf("job %q claimed twice", j.ID)
			}
			seen[j.ID] = true
		}
		left -= len(res.Jobs)
	}
	claimNone(t, s, q, "all 92 jobs were claimed")
}
