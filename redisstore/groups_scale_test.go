package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// TestGroupedDepthCostFlat: QueueStats and the Scheduler's once-a-minute
// depth sample of a queue with groups run as many Redis commands with
// 3,000 groups as with 300. They used to read every group's list (about
// four commands a group), which held the server for 55 ms at 10,000 groups
// and 0.8 s at 100,000, on every dashboard refresh.
func TestGroupedDepthCostFlat(t *testing.T) {
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: true})
	ctx := t.Context()
	var statsCalls, maintainCalls []int64
	for _, groups := range []int{300, 3000} {
		q := "q" + strconv.Itoa(groups)
		enqueueTwoPerGroup(t, s, q, groups)
		// The oldest job has waited: the server's clock moved on.
		passOnServer(t, rdb, 2*time.Millisecond)
		var st store.QueueStats
		n := scriptCommands(t, rdb, func() {
			var err error
			if st, err = s.GetQueueStats(ctx, q); err != nil {
				t.Fatal(err)
			}
		})
		if st.Counts.Ready != int64(2*groups) || st.Latency <= 0 {
			t.Fatalf("QueueStats of %d groups of 2 jobs: Ready %d, Latency %v; want %d and above zero", groups, st.Counts.Ready, st.Latency, 2*groups)
		}
		statsCalls = append(statsCalls, n)
		maintainCalls = append(maintainCalls, scriptCommands(t, rdb, func() {
			if _, err := s.Maintain(ctx, q, store.MaintainOpts{}); err != nil {
				t.Fatal(err)
			}
		}))
		points, err := s.GetThroughput(ctx, q, time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var sampled *store.ThroughputPoint
		for i := range points {
			if points[i].Sampled {
				sampled = &points[i]
			}
		}
		if sampled == nil || sampled.Ready != int64(2*groups) || sampled.Latency <= 0 {
			t.Fatalf("Throughput after the first Maintain of %d groups: %+v; want a depth sample of %d ready", groups, points, 2*groups)
		}
	}
	if statsCalls[1] != statsCalls[0] {
		t.Errorf("QueueStats ran %d commands over 300 groups and %d over 3,000, want as many", statsCalls[0], statsCalls[1])
	}
	if maintainCalls[1] != maintainCalls[0] {
		t.Errorf("Maintain with its depth sample ran %d commands over 300 groups and %d over 3,000, want as many", maintainCalls[0], maintainCalls[1])
	}
}

// scriptCommands returns how many commands the server ran during f, those
// its scripts called included, leaving out the script calls themselves,
// the loading of a variant first used during f (FUNCTION LOAD) and the
// counting's own.
func scriptCommands(t *testing.T, rdb *redis.Client, f func()) int64 {
	t.Helper()
	ctx := context.Background()
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	f()
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for line := range strings.Lines(info) {
		name, rest, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "cmdstat_"), ":calls=")
		if !ok || name == "fcall" || name == "fcall_ro" || name == "evalsha" || name == "evalsha_ro" || strings.HasPrefix(name, "config") || strings.HasPrefix(name, "function") {
			continue
		}
		c, err := strconv.ParseInt(rest[:strings.IndexByte(rest+",", ',')], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		n += c
	}
	return n
}

// TestGroupedListing: the ready jobs of a queue with groups list in order
// (the ungrouped first, then each group by name; newest first the same
// reversed) across pages that cross the script's batches of group names,
// and the first page costs as many commands with 3,000 groups as with 300.
func TestGroupedListing(t *testing.T) {
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: true})
	ctx := t.Context()
	var firstPage []int64
	for _, groups := range []int{300, 3000} {
		q := "q" + strconv.Itoa(groups)
		jobs := []*store.NewJob{job(q, "plain")}
		var want []string
		for g := range groups {
			for i := range 2 {
				j := job(q, fmt.Sprintf("g%05d-%d", g, i))
				j.Group = fmt.Sprintf("g%05d", g)
				jobs = append(jobs, j)
				want = append(want, j.ID)
			}
		}
		want = append([]string{"plain"}, want...)
		for i := 0; i < len(jobs); i += 1000 {
			mustEnqueue(t, s, jobs[i:min(i+1000, len(jobs))]...)
		}
		firstPage = append(firstPage, scriptCommands(t, rdb, func() {
			page, err := s.ListJobs(ctx, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 20})
			if err != nil || page.Total != len(want) || len(page.Jobs) != 20 || page.Jobs[19].ID != want[19] {
				t.Fatalf("first page of %d groups: %d jobs, total %d, %v; want 20 ending %s, total %d", groups, len(page.Jobs), page.Total, err, want[19], len(want))
			}
		}))
		if groups > 300 {
			// Deleting every ready job reads the first 500 groups a
			// batch, past emptied ones too.
			if n, err := s.DeleteJobs(ctx, q, store.StateReady, want[1:2001]); err != nil || n != 2000 {
				t.Fatalf("Delete of the first 1,000 groups' jobs: %d, %v", n, err)
			}
			if n, err := s.DeleteJobs(ctx, q, store.StateReady, nil); err != nil || n != len(want)-2000 {
				t.Fatalf("Delete of every ready job after emptying 1,000 groups: %d, %v; want %d", n, err, len(want)-2000)
			}
			if st, err := s.GetQueueStats(ctx, q); err != nil || st.Counts.Ready != 0 || st.Counts.Total() != 0 {
				t.Fatalf("QueueStats after deleting every job: %+v, %v; want none", st.Counts, err)
			}
			continue
		}
		for _, newest := range []bool{false, true} {
			var got []string
			for off := 0; ; off += 37 {
				page, err := s.ListJobs(ctx, store.ListJobsOpts{Queue: q, State: store.StateReady, Offset: off, Limit: 37, Newest: newest})
				if err != nil {
					t.Fatal(err)
				}
				if page.Total != len(want) {
					t.Fatalf("page at %d: total %d, want %d", off, page.Total, len(want))
				}
				for _, j := range page.Jobs {
					got = append(got, j.ID)
				}
				if len(page.Jobs) < 37 {
					break
				}
			}
			w := want
			if newest {
				w = slices.Clone(want)
				slices.Reverse(w)
			}
			if !slices.Equal(got, w) {
				t.Fatalf("pages of 37, newest first %v: %d jobs, first %v; want %d, first %v", newest, len(got), got[:min(5, len(got))], len(w), w[:5])
			}
		}
		// Groups emptied by deletes stay listed as names until a claim
		// meets them: a page past them reads further than its first
		// names, and so does a listing of groups.
		if n, err := s.DeleteJobs(ctx, q, store.StateReady, want[1:121]); err != nil || n != 120 {
			t.Fatalf("Delete of the first 60 groups' jobs: %d, %v", n, err)
		}
		page, err := s.ListJobs(ctx, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 20})
		if err != nil || len(page.Jobs) != 20 || page.Jobs[1].ID != want[121] || page.Jobs[19].ID != want[139] || page.Total != len(want)-120 {
			t.Fatalf("first page after emptying 60 groups: %d jobs from %v, total %d, %v; want 20 from plain, %s, total %d", len(page.Jobs), ids(page.Jobs), page.Total, err, want[121], len(want)-120)
		}
		gs, err := s.ListGroups(ctx, q, 10)
		if err != nil || len(gs) != 10 || gs[0].Group != "g00060" || gs[9].Group != "g00069" {
			t.Fatalf("Groups(10) after emptying the first 60: %+v, %v; want g00060 to g00069", gs, err)
		}
	}
	if firstPage[1] != firstPage[0] {
		t.Errorf("the first page of ready jobs ran %d commands over 300 groups and %d over 3,000, want as many", firstPage[0], firstPage[1])
	}
}

// ids returns the IDs of recs.
func ids(recs []*store.JobRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// TestDrainedGroupsLeaveNoNames: once a grouped queue is drained (and,
// with a rate limit per group, its window passed and the Scheduler came
// by), Redis holds no trace of its groups: the same keys as a drained
// queue without groups. A group whose last jobs a claim took used to stay
// in the set of group names for good (194 of 200 groups after one drain),
// and a rate-limited group kept its rate log (a key each), so that with
// tenants coming and going these grew with every group ever seen.
func TestDrainedGroupsLeaveNoNames(t *testing.T) {
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: true, Prefix: "dr"})
	ctx := t.Context()
	left := map[string][]string{}
	const period = time.Second // longer than the first claims take
	for _, q := range []string{"plain", "grouped", "rated"} {
		if q == "rated" {
			if err := s.SetQueueConfig(ctx, q, store.QueueConfig{GroupRateLimit: 10000, GroupRatePeriod: period}); err != nil {
				t.Fatal(err)
			}
		}
		var jobs []*store.NewJob
		for i := range 1000 {
			j := job(q, fmt.Sprintf("j%05d", i))
			if q != "plain" {
				j.Group = "g" + strconv.Itoa(i%200)
			}
			jobs = append(jobs, j)
		}
		mustEnqueue(t, s, jobs...)
		for done := 0; done < len(jobs); {
			res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 32, Lease: time.Minute, WorkerID: "w"})
			if err != nil || len(res.Jobs) == 0 {
				t.Fatalf("claim after %d of %d: %d jobs, %v", done, len(jobs), len(res.Jobs), err)
			}
			var reqs []store.AttemptEnd
			for _, j := range res.Jobs {
				reqs = append(reqs, store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck})
			}
			if _, err := s.Finish(ctx, reqs); err != nil {
				t.Fatal(err)
			}
			done += len(res.Jobs)
		}
		// Once the last claim left the rate window (the period and its
		// guard, in whole ms), the Scheduler's next once-a-minute pass
		// forgets the groups' rate logs.
		passOnServer(t, rdb, (store.QueueConfig{GroupRateLimit: 1, GroupRatePeriod: period}).GroupRate().Window+time.Millisecond)
		if _, err := s.Maintain(ctx, q, store.MaintainOpts{}); err != nil {
			t.Fatal(err)
		}
		keys, err := rdb.Keys(ctx, "{dr:"+q+"}*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			// The settings the test gave the rated queue stay, as any
			// queue's do.
			if k := strings.TrimPrefix(k, "{dr:"+q+"}"); k != ":c" {
				left[q] = append(left[q], k)
			}
		}
		slices.Sort(left[q])
	}
	for _, q := range []string{"grouped", "rated"} {
		if !slices.Equal(left[q], left["plain"]) {
			t.Errorf("keys left after a drain: %s %v, without groups %v; want the same", q, left[q], left["plain"])
		}
	}
}

// passOnServer returns once d has passed on the server's clock.
func passOnServer(t *testing.T, rdb *redis.Client, d time.Duration) {
	t.Helper()
	start, err := rdb.Time(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for now := start; now.Sub(start) <= d; {
		if now, err = rdb.Time(t.Context()).Result(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGroupHoldsEndingAtOnceCostFlat: a claim puts at most a bounded
// number of groups whose holds ended back in the rotation, so it runs as
// many commands with 3,000 such groups as with 600; the claims that
// follow put back the rest, and every group's next job is claimed. One
// claim put every group back: with a rate limit of 1 per group, the claim
// after a burst over 10,000 to 50,000 tenants held the server for 66 to
// 153 ms (an outside trial).
func TestGroupHoldsEndingAtOnceCostFlat(t *testing.T) {
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: true})
	ctx := t.Context()
	const period = time.Second // longer than the first claims take
	var calls []int64
	for _, groups := range []int{600, 3000} {
		q := "h" + strconv.Itoa(groups)
		if err := s.SetQueueConfig(ctx, q, store.QueueConfig{GroupRateLimit: 1, GroupRatePeriod: period}); err != nil {
			t.Fatal(err)
		}
		enqueueTwoPerGroup(t, s, q, groups)
		// Every group's first job: each group is then held for the period.
		if first := claimUntilHeld(t, s, q); first != groups {
			t.Fatalf("%d groups: the first claims took %d jobs, want one a group", groups, first)
		}
		passOnServer(t, rdb, period+100*time.Millisecond) // every hold has ended
		var res store.ClaimResult
		calls = append(calls, scriptCommands(t, rdb, func() {
			var err error
			if res, err = s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1, Lease: time.Minute}); err != nil {
				t.Fatal(err)
			}
		}))
		if n := len(res.Jobs) + claimUntilHeld(t, s, q); n != groups {
			t.Fatalf("%d groups: %d second jobs claimed once their holds ended, want one a group", groups, n)
		}
	}
	if calls[1] != calls[0] {
		t.Errorf("the claim after the holds ended ran %d commands over 600 groups and %d over 3,000, want as many", calls[0], calls[1])
	}
}

// claimUntilHeld claims from q until a claim returns no job and a RetryIn
// of 100 ms or more (every group with jobs held) or none (no job left),
// and returns how many jobs it took. A RetryIn under 100 ms is holds
// that ended and are still to be put back, which the next claims do.
func claimUntilHeld(t *testing.T, s *redisstore.Store, q string) int {
	t.Helper()
	n := 0
	for {
		res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: q, Max: 1000, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		n += len(res.Jobs)
		if len(res.Jobs) == 0 && (res.RetryIn == 0 || res.RetryIn >= 100*time.Millisecond) {
			return n
		}
	}
}

// enqueueTwoPerGroup enqueues two jobs into each of groups groups of
// queue q, a thousand a call.
func enqueueTwoPerGroup(t *testing.T, s *redisstore.Store, q string, groups int) {
	t.Helper()
	var jobs []*store.NewJob
	for i := range 2 * groups {
		j := job(q, fmt.Sprintf("j%05d", i))
		j.Group = "g" + strconv.Itoa(i%groups)
		jobs = append(jobs, j)
	}
	for i := 0; i < len(jobs); i += 1000 {
		mustEnqueue(t, s, jobs[i:min(i+1000, len(jobs))]...)
	}
}

// TestManyQuietGroupsRateLogsAreForgotten: the rate logs of groups gone
// quiet are forgotten faster than once a minute 500 of them when there
// are many: Maintain passes go on sweeping while the last sweep found
// much to forget. A queue that saw 1,500 new groups a minute grew its
// logs for good, a pass a minute forgetting 500 (an outside soak).
func TestManyQuietGroupsRateLogsAreForgotten(t *testing.T) {
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: true, Prefix: "rl"})
	ctx := t.Context()
	const q, groups, period = "rated", 2000, time.Second
	if err := s.SetQueueConfig(ctx, q, store.QueueConfig{GroupRateLimit: 10000, GroupRatePeriod: period}); err != nil {
		t.Fatal(err)
	}
	var jobs []*store.NewJob
	for i := range groups {
		j := job(q, fmt.Sprintf("j%05d", i))
		j.Group = "g" + strconv.Itoa(i)
		jobs = append(jobs, j)
	}
	mustEnqueue(t, s, jobs...)
	for done := 0; done < groups; {
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 100, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) == 0 {
			t.Fatalf("claim after %d of %d: %d jobs, %v", done, groups, len(res.Jobs), err)
		}
		done += len(res.Jobs)
	}
	if n := rdb.HLen(ctx, "{rl:"+q+"}:gw").Val(); n != groups {
		t.Fatalf("%d rate logs after claiming from %d groups, want one each", n, groups)
	}
	passOnServer(t, rdb, (store.QueueConfig{GroupRateLimit: 1, GroupRatePeriod: period}).GroupRate().Window+time.Millisecond)
	// The first pass is the minute's (the queue's first); the next ones,
	// seconds apart in a Scheduler, go on while there is much to forget.
	for range 8 {
		if _, err := s.Maintain(ctx, q, store.MaintainOpts{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := rdb.HLen(ctx, "{rl:"+q+"}:gw").Val(); n != 0 {
		t.Fatalf("%d of %d quiet groups' rate logs left after 8 Maintain passes, want none", n, groups)
	}
}
