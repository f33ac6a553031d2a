package storetest

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func statsCases() []adminCase {
	return []adminCase{
		{name: "CountsEveryState", fn: testStatsCounts},
		{name: "EmptyQueue", fn: testStatsEmpty},
		{name: "Latency", fn: testStatsLatency},
		{name: "ConfigRoundTrip", fn: testStatsConfig},
		{name: "Throughput", fn: testStatsThroughput},
		{name: "ThroughputEmpty", fn: testStatsThroughputEmpty},
		{name: "DepthSampled", fn: testStatsDepthSampled},
	}
}

// durationsFunc is a Durations case: the store as a store.Store and its
// store.Durations.
type durationsFunc = func(t *testing.T, s store.Store, ds store.Durations)

func durationsCases() []testCase[durationsFunc] {
	return []testCase[durationsFunc]{
		{name: "AddAndRead", fn: testDurations},
		{name: "RefusesInvalidQueue", fn: testDurationsInvalidQueue},
		{name: "RefusesInvalidCounts", fn: testDurationsInvalidCounts},
	}
}

// testDurations: handler durations added per queue, kind and bucket come
// back summed; other queues' stay apart.
func testDurations(t *testing.T, s store.Store, ds store.Durations) {
	q, other := newQueue(t), newQueue(t)
	add := func(cs ...store.DurationCount) {
		t.Helper()
		if err := ds.AddDurations(t.Context(), cs); err != nil {
			t.Fatalf("AddDurations: %v", err)
		}
	}
	add(store.DurationCount{Queue: q, Kind: "mail", Bucket: 10, Count: 3}, store.DurationCount{Queue: q, Kind: "mail", Bucket: 20, Count: 1},
		store.DurationCount{Queue: other, Kind: "mail", Bucket: 10, Count: 7})
	add(store.DurationCount{Queue: q, Kind: "mail", Bucket: 10, Count: 2}, store.DurationCount{Queue: q, Kind: "report|x", Bucket: 0, Count: 4})
	got, err := ds.GetDurationCounts(t.Context(), q, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]int64{}
	for _, c := range got {
		if c.Queue != q {
			t.Errorf("DurationCounts(%q) returned %+v of another queue", q, c)
		}
		sum[fmt.Sprintf("%s/%d", c.Kind, c.Bucket)] += c.Count
	}
	if want := map[string]int64{"mail/10": 5, "mail/20": 1, "report|x/0": 4}; !maps.Equal(sum, want) {
		t.Errorf("DurationCounts = %v, want %v", sum, want)
	}
	if got, err := ds.GetDurationCounts(t.Context(), q, time.Now().Add(2*time.Hour)); err != nil || len(got) != 0 {
		t.Errorf("DurationCounts from a later hour = %v, %v; want none", got, err)
	}
	if err := ds.AddDurations(t.Context(), []store.DurationCount{{Queue: "bad queue", Kind: "k", Count: 1}}); err == nil {
		t.Error("AddDurations accepted an invalid queue")
	}
}

// testStatsDepthSampled: Maintain samples a queue's ready jobs and the
// wait of the oldest once a minute, and reports the backlog.
func testStatsDepthSampled(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	if r := maintain(t, s, q, store.MaintainOpts{}); r.Backlog {
		t.Fatalf("Maintain of an empty queue: %+v, want no Backlog", r)
	}
	add(t, s, job(q, "a"), job(q, "b"), job(q, "c"))
	before := time.Now()
	r := maintain(t, s, q, store.MaintainOpts{})
	if !r.Backlog || !r.Idle {
		t.Fatalf("Maintain of a queue with 3 ready jobs: %+v, want Backlog (and Idle: nothing is scheduled)", r)
	}
	// A queue maintained first with jobs ready: the minute's sample.
	q2 := newQueue(t)
	add(t, s, job(q2, "a"), job(q2, "b"))
	maintain(t, s, q2, store.MaintainOpts{})
	pts, err := a.GetThroughput(t.Context(), q2, before.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var last *store.ThroughputPoint
	for i := range pts {
		if pts[i].Sampled {
			last = &pts[i]
		}
	}
	if last == nil || last.Ready != 2 || last.Latency < 0 || last.Latency > time.Since(before)+time.Second || last.Span != time.Minute {
		t.Fatalf("Throughput after Maintain of 2 ready jobs: %+v, want the minute sampled with Ready 2 and the wait of the oldest", pts)
	}
}

func testStatsCounts(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	var jobs []*store.NewJob
	for _, id := range slices.Concat(seqIDs("unack", 3), seqIDs("retry", 4), seqIDs("garbage", 5), seqIDs("done", 6)) {
		jobs = append(jobs, withRetries(q, id, 1))
	}
	add(t, s, jobs...)
	claimed := claim(t, s, q, len(jobs), long).Jobs
	if len(claimed) != len(jobs) {
		t.Fatalf("Claim Max %d: got %d jobs, want all", len(jobs), len(claimed))
	}
	var reqs []store.AttemptEnd
	for _, c := range claimed[3:] {
		switch c.ID[0] {
		case 'r':
			reqs = append(reqs, failed(c, store.OutcomeRetry, "boom", long))
		case 'g':
			reqs = append(reqs, failed(c, store.OutcomeGarbage, "boom", 0))
		case 'd':
			r := outcome(c, store.OutcomeAck)
			r.Retention = long
			reqs = append(reqs, r)
		}
	}
	finishOK(t, s, reqs...)
	add(t, s, job(q, "ready1"), job(q, "ready2"), delayed(q, "pending", long))
	st := stats(t, a, q)
	want := store.StateCounts{Pending: 1, Ready: 2, Unack: 3, Retry: 4, Garbage: 5, Done: 6}
	if st.Queue != q || st.Counts != want || st.Counts.Total() != 21 {
		t.Fatalf("QueueStats: queue %q, counts %+v; want %q, %+v", st.Queue, st.Counts, q, want)
	}
}

func testStatsEmpty(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	st := stats(t, a, q)
	if st.Queue != q || st.Counts != (store.StateCounts{}) || st.Latency != 0 || st.Config.Paused {
		t.Fatalf("QueueStats of an unused queue: %+v, want queue %q with zero counts, no latency, not paused", st, q)
	}
}

func testStatsLatency(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, delayed(q, "pending", long))
	if l := stats(t, a, q).Latency; l != 0 {
		t.Fatalf("Latency with no ready job: %v, want 0", l)
	}
	start := time.Now()
	add(t, s, job(q, "ready"))
	testutil.Eventually(t, waitFor, func() error {
		if l := stats(t, a, q).Latency; l <= 0 {
			return fmt.Errorf("Latency %v with a job ready since %v ago, want > 0", l, time.Since(start))
		}
		return nil
	})
	if l, most := stats(t, a, q).Latency, time.Since(start)+clockSlack; l > most {
		t.Fatalf("Latency %v, want at most %v (the only ready job was enqueued %v ago)", l, most, time.Since(start))
	}
	claimOne(t, s, q, "ready", long)
	if l := stats(t, a, q).Latency; l != 0 {
		t.Fatalf("Latency after the only ready job was claimed: %v, want 0", l)
	}
}

func testStatsConfig(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	cfg := store.QueueConfig{Paused: true, MaxRunning: 3, RateLimit: 10, RatePeriod: 2 * time.Second, Retention: long,
		RateSmooth: true, RateBurst: 3, GroupMaxRunning: 2, GroupRateLimit: 5, GroupRatePeriod: 3 * time.Second,
		GroupRateSmooth: true, GroupRateBurst: 1}
	setQueueConfig(t, a, q, cfg)
	if got := stats(t, a, q).Config; got != cfg {
		t.Fatalf("QueueStats.Config = %+v after SetQueueConfig(%+v)", got, cfg)
	}
	setQueueConfig(t, a, q, store.QueueConfig{MaxRunning: 1})
	got := stats(t, a, q).Config
	if got.Paused || got.MaxRunning != 1 || got.RateLimit != 0 || got.Retention != 0 || got.RatePeriod != 0 && got.RatePeriod != time.Second ||
		got.GroupMaxRunning != 0 || got.GroupRateLimit != 0 || got.GroupRatePeriod != 0 ||
		got.RateSmooth || got.RateBurst != 0 || got.GroupRateSmooth || got.GroupRateBurst != 0 {
		t.Fatalf("QueueStats.Config = %+v after SetQueueConfig({MaxRunning: 1}), want every other field reset (replaced, not merged)", got)
	}
}

// throughput sums q's throughput over the last few minutes and checks the
// points' shape.
func throughput(t *testing.T, a store.Admin, q string) (done, failed int64) {
	t.Helper()
	pts, err := a.GetThroughput(t.Context(), q, time.Now().Add(-3*time.Minute))
	if err != nil {
		t.Fatalf("Throughput(%q): unexpected error: %v", q, err)
	}
	for i, p := range pts {
		if !p.Minute.Equal(p.Minute.Truncate(time.Minute)) {
			t.Fatalf("Throughput point %d: Minute %v, want the start of a minute", i, p.Minute)
		}
		if i > 0 && !p.Minute.After(pts[i-1].Minute) {
			t.Fatalf("Throughput points %d and %d: minutes %v then %v, want oldest first, one per minute", i-1, i, pts[i-1].Minute, p.Minute)
		}
		if p.Done+p.Failed == 0 {
			t.Fatalf("Throughput point %d (%v) counts nothing, want only minutes that had any", i, p.Minute)
		}
		if p.Span != time.Minute {
			t.Fatalf("Throughput point %d (%v): Span %v, want a minute for the last day", i, p.Minute, p.Span)
		}
		if !within(p.Minute, time.Now(), 4*time.Minute) {
			t.Fatalf("Throughput point %d: Minute %v, want within the last few minutes", i, p.Minute)
		}
		done += p.Done
		failed += p.Failed
	}
	return done, failed
}

func testStatsThroughput(t *testing.T, s store.Store, a store.Admin) {
	q, other := newQueue(t), newQueue(t)
	var jobs []*store.NewJob
	for _, id := range seqIDs("j", 8) {
		jobs = append(jobs, withRetries(q, id, 3))
	}
	add(t, s, jobs...)
	add(t, s, job(other, "elsewhere"))
	finishOK(t, s, outcome(claimOne(t, s, other, "elsewhere", long), store.OutcomeAck))
	c := claim(t, s, q, 8, long).Jobs
	if len(c) != 8 {
		t.Fatalf("Claim Max 8: got %d jobs, want 8", len(c))
	}
	retained := outcome(c[2], store.OutcomeAck)
	retained.Retention = long
	snooze := outcome(c[6], store.OutcomeSnooze)
	snooze.Delay = long
	finishOK(t, s,
		outcome(c[0], store.OutcomeAck), outcome(c[1], store.OutcomeAck), retained,
		failed(c[3], store.OutcomeRetry, "boom", long), failed(c[4], store.OutcomeRetry, "boom", long),
		failed(c[5], store.OutcomeGarbage, "dead", 0),
		snooze, outcome(c[7], store.OutcomeRelease))
	claimOne(t, s, q, c[7].ID, 30*time.Millisecond) // released, claimed again, and its worker dies
	awaitReclaim(t, s, q)
	if d, f := throughput(t, a, q); d != 3 || f != 4 {
		t.Fatalf("Throughput over the last minutes: %d done, %d failed; want 3 done (acks), 4 failed (2 retries, 1 garbage, 1 expired lease; snooze and release not counted)", d, f)
	}
}

func testStatsThroughputEmpty(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	if d, f := throughput(t, a, q); d != 0 || f != 0 {
		t.Fatalf("Throughput of a queue where nothing finished: %d done, %d failed; want none", d, f)
	}
}

// testDurationsInvalidCounts: AddDurations refuses a bucket outside 0 to
// store.MaxDurationBucket or a negative count with an error wrapping
// store.ErrInvalidConfig, and adds none of the call's counts, not even its
// valid ones; a count of 0 is valid and adds nothing.
func testDurationsInvalidCounts(t *testing.T, _ store.Store, ds store.Durations) {
	q := newQueue(t)
	since := time.Now().Add(-time.Hour)
	valid := store.DurationCount{Queue: q, Kind: "mail", Bucket: 3, Count: 2}
	for _, bad := range []store.DurationCount{
		{Queue: q, Kind: "mail", Bucket: -1, Count: 1},
		{Queue: q, Kind: "mail", Bucket: store.MaxDurationBucket + 1, Count: 1},
		{Queue: q, Kind: "mail", Bucket: 1, Count: -1},
	} {
		err := ds.AddDurations(t.Context(), []store.DurationCount{valid, bad})
		requireErrIs(t, fmt.Sprintf("AddDurations of %+v", bad), err, store.ErrInvalidConfig)
	}
	got, err := ds.GetDurationCounts(t.Context(), q, since)
	if err != nil {
		t.Fatalf("GetDurationCounts: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("after refused AddDurations calls, GetDurationCounts = %+v, want none (nothing added)", got)
	}
	edge := store.DurationCount{Queue: q, Kind: "mail", Bucket: store.MaxDurationBucket, Count: 1}
	zero := store.DurationCount{Queue: q, Kind: "mail", Bucket: 0, Count: 0}
	if err := ds.AddDurations(t.Context(), []store.DurationCount{valid, edge, zero}); err != nil {
		t.Fatalf("AddDurations of valid counts: %v", err)
	}
	got, err = ds.GetDurationCounts(t.Context(), q, since)
	if err != nil {
		t.Fatalf("GetDurationCounts: %v", err)
	}
	slices.SortFunc(got, func(a, b store.DurationCount) int { return a.Bucket - b.Bucket })
	want := []store.DurationCount{valid, edge}
	if !slices.Equal(got, want) {
		t.Fatalf("GetDurationCounts = %+v, want %+v (a count of 0 adds nothing)", got, want)
	}
}

// testDurationsInvalidQueue: GetDurationCounts refuses an invalid queue
// name with an error wrapping store.ErrInvalidQueue, as AddDurations does.
func testDurationsInvalidQueue(t *testing.T, _ store.Store, ds store.Durations) {
	for _, q := range invalidQueues {
		_, err := ds.GetDurationCounts(t.Context(), q, time.Now().Add(-time.Hour))
		requireErrIs(t, fmt.Sprintf("GetDurationCounts(%q)", q), err, store.ErrInvalidQueue)
		err = ds.AddDurations(t.Context(), []store.DurationCount{{Queue: q, Kind: "mail", Bucket: 1, Count: 1}})
		requireErrIs(t, fmt.Sprintf("AddDurations(%q)", q), err, store.ErrInvalidQueue)
	}
}
