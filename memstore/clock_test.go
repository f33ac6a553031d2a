package memstore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// ms returns t0 truncated to the millisecond plus d.
func ms(d time.Duration) time.Time { return t0.Truncate(time.Millisecond).Add(d) }

func TestTimesComeFromTheClockTruncated(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"))
	r := getJob(t, s, "a")
	if !r.EnqueuedAt.Equal(ms(0)) || !r.RunAt.Equal(ms(0)) {
		t.Fatalf("EnqueuedAt %v, RunAt %v, want both %v", r.EnqueuedAt, r.RunAt, ms(0))
	}
	c := claim(t, s, 1, 1500*time.Microsecond).Jobs[0]
	if !c.AttemptedAt.Equal(ms(0)) || !c.Deadline.Equal(ms(2*time.Millisecond)) {
		t.Fatalf("AttemptedAt %v, Deadline %v: want %v and a lease rounded up to 2ms", c.AttemptedAt, c.Deadline, ms(0))
	}
}

func TestDelayedJobIsNotClaimableBeforeItsMillisecond(t *testing.T) {
	s, clock := newClocked()
	a := newJob("a")
	a.Delay = 10 * time.Millisecond
	b := newJob("b")
	b.RunAt = ms(20*time.Millisecond + time.Nanosecond) // rounds up to 21ms
	c := newJob("c")
	c.RunAt = ms(-time.Hour)
	res := mustEnqueue(t, s, a, b, c)
	if got := []store.JobState{res[0].State, res[1].State, res[2].State}; !slices.Equal(got, []store.JobState{store.StatePending, store.StatePending, store.StateReady}) {
		t.Fatalf("states %v", got)
	}
	if r := getJob(t, s, "b"); !r.RunAt.Equal(ms(21 * time.Millisecond)) {
		t.Fatalf("b.RunAt = %v, want %v", r.RunAt, ms(21*time.Millisecond))
	}
	if got := ids(claim(t, s, 10, time.Minute).Jobs); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("claimed %v, want [c]", got)
	}

	steps := []struct {
		at   time.Time
		want []string
	}{
		{ms(10*time.Millisecond - time.Nanosecond), nil},
		{ms(10 * time.Millisecond), []string{"a"}},
		{ms(21*time.Millisecond - time.Nanosecond), nil},
		{ms(21 * time.Millisecond), []string{"b"}},
	}
	for _, st := range steps {
		clock.Set(st.at)
		m := maintain(t, s, store.MaintainOpts{})
		if m.Promoted != len(st.want) {
			t.Fatalf("at %v: promoted %d, want %d", st.at, m.Promoted, len(st.want))
		}
		if got := ids(claim(t, s, 10, time.Minute).Jobs); !slices.Equal(got, st.want) {
			t.Fatalf("at %v: claimed %v, want %v", st.at, got, st.want)
		}
	}
}

func TestMaintainNextInAndIdleFollowTheClock(t *testing.T) {
	s, clock := newClocked()
	if m := maintain(t, s, store.MaintainOpts{}); !m.Idle {
		t.Fatalf("unknown queue: %+v, want Idle", m)
	}
	a := newJob("a")
	a.Delay = 5 * time.Second
	mustEnqueue(t, s, a)
	if m := maintain(t, s, store.MaintainOpts{}); m.Idle || m.NextIn != 5*time.Second {
		t.Fatalf("%+v, want NextIn 5s", m)
	}
	clock.Set(ms(5 * time.Second))
	if m := maintain(t, s, store.MaintainOpts{}); m.Promoted != 1 || !m.Idle {
		t.Fatalf("%+v, want 1 promoted and Idle", m)
	}
	claim(t, s, 1, 7*time.Second)
	if m := maintain(t, s, store.MaintainOpts{}); m.Idle || m.NextIn != 7*time.Second {
		t.Fatalf("%+v, want NextIn 7s (the lease)", m)
	}
}

func TestLeaseExpiryIsReclaimedOnTheStoreClock(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	j := newJob("a")
	j.MaxRetries = 1
	mustEnqueue(t, s, j)

	first := claim(t, s, 1, 30*time.Second).Jobs[0]
	if first.Attempt != 1 || !first.Deadline.Equal(ms(30*time.Second)) {
		t.Fatalf("first claim: attempt %d, deadline %v", first.Attempt, first.Deadline)
	}
	clock.Set(ms(30*time.Second - time.Nanosecond))
	if m := maintain(t, s, store.MaintainOpts{}); m.Reclaimed != 0 || m.NextIn != time.Millisecond {
		t.Fatalf("before the deadline: %+v, want nothing reclaimed, NextIn 1ms", m)
	}
	clock.Set(ms(30 * time.Second))
	if m := maintain(t, s, store.MaintainOpts{}); m.Reclaimed != 1 || m.Promoted != 0 {
		t.Fatalf("at the deadline: %+v, want 1 reclaimed (back in ready at once, not counted as promoted)", m)
	}
	r := getJob(t, s, "a")
	if r.State != store.StateReady || r.Attempt != 1 || r.Token != 0 || len(r.Errors) != 1 {
		t.Fatalf("after reclaim: %+v", r)
	}
	if e := r.Errors[0]; e.Error != store.ErrLeaseExpired.Error() || e.Attempt != 1 || !e.At.Equal(ms(30*time.Second)) {
		t.Fatalf("error %+v", e)
	}

	// The stale worker can neither finish nor extend.
	if errs := finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: first.Token, Outcome: store.OutcomeAck}); !errors.Is(errs[0], store.ErrLeaseLost) {
		t.Fatalf("stale ack: %v, want ErrLeaseLost", errs[0])
	}
	second := claim(t, s, 1, time.Second).Jobs[0]
	if second.Attempt != 2 || second.Token <= first.Token {
		t.Fatalf("second claim: attempt %d token %d (first token %d)", second.Attempt, second.Token, first.Token)
	}
	st, err := s.Extend(ctx, []store.LeaseRef{{Queue: testQueue, ID: "a", Token: first.Token}}, time.Hour)
	if err != nil || st[0].Held {
		t.Fatalf("stale extend: %+v %v", st, err)
	}
	if r := getJob(t, s, "a"); !r.Deadline.Equal(second.Deadline) {
		t.Fatalf("stale extend moved the deadline to %v", r.Deadline)
	}

	// Attempts used up: the next expiry sends it to garbage.
	clock.Set(second.Deadline)
	if m := maintain(t, s, store.MaintainOpts{}); m.Reclaimed != 1 || m.Promoted != 0 {
		t.Fatalf("second expiry: %+v", m)
	}
	r = getJob(t, s, "a")
	if r.State != store.StateGarbage || !r.FinishedAt.Equal(second.Deadline) || len(r.Errors) != 2 {
		t.Fatalf("after second expiry: %+v", r)
	}
	pts, err := s.GetThroughput(ctx, testQueue, ms(-time.Hour))
	if err != nil || len(pts) != 1 || pts[0].Failed != 2 || pts[0].Done != 0 {
		t.Fatalf("throughput %+v %v, want one minute with 2 failed", pts, err)
	}
}

func TestAckAfterDeadlineBeforeReclaimIsAccepted(t *testing.T) {
	s, clock := newClocked()
	mustEnqueue(t, s, newJob("a"))
	c := claim(t, s, 1, time.Second).Jobs[0]
	clock.Set(ms(time.Hour))
	if errs := finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: c.Token, Outcome: store.OutcomeAck}); errs[0] != nil {
		t.Fatalf("late ack: %v", errs[0])
	}
	if _, err := s.GetJob(context.Background(), testQueue, "a"); !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("GetJob after ack: %v, want ErrJobNotFound", err)
	}
}

// The rate limit counts claims in a window that slides with the clock: a
// claim is counted for one RatePeriod and its guard (50 ms) after it,
// whatever second it fell in. Fixed windows would let 3 more through at
// the next whole second (877 ms in), 5 within one second.
func TestRateLimitIsASlidingWindowOnTheClock(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	for i := range 10 {
		mustEnqueue(t, s, newJob(string(rune('a'+i))))
	}
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{RateLimit: 3, RatePeriod: time.Second}); err != nil {
		t.Fatal(err)
	}
	// The clock is at .123 in its second: t0.
	if res := claim(t, s, 2, time.Minute); len(res.Jobs) != 2 || res.RetryIn != 0 {
		t.Fatalf("at t0: %d jobs, RetryIn %v; want 2 and no limit hit", len(res.Jobs), res.RetryIn)
	}
	clock.Set(ms(500 * time.Millisecond))
	res := claim(t, s, 10, time.Minute)
	if len(res.Jobs) != 1 || res.RetryIn != 550*time.Millisecond {
		t.Fatalf("at t0+500ms: %d jobs, RetryIn %v; want 1 and 550ms (until t0's claims are a second and the guard old)", len(res.Jobs), res.RetryIn)
	}
	clock.Set(ms(1049 * time.Millisecond))
	if res := claim(t, s, 10, time.Minute); len(res.Jobs) != 0 || res.RetryIn != time.Millisecond {
		t.Fatalf("at t0+1049ms (past the whole second): %d jobs, RetryIn %v; want none and 1ms", len(res.Jobs), res.RetryIn)
	}
	if st, err := s.GetQueueStats(ctx, testQueue); err != nil || st.RateUsed != 3 {
		t.Fatalf("QueueStats at t0+1049ms: RateUsed %d (%v), want 3", st.RateUsed, err)
	}
	clock.Set(ms(1050 * time.Millisecond))
	if res := claim(t, s, 10, time.Minute); len(res.Jobs) != 2 || res.RetryIn != 500*time.Millisecond {
		t.Fatalf("at t0+1050ms: %d jobs, RetryIn %v; want 2 (t0's left the window) and 500ms", len(res.Jobs), res.RetryIn)
	}
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{RateLimit: 3, RatePeriod: time.Second}); err != nil {
		t.Fatal(err)
	}
	if res := claim(t, s, 10, time.Minute); len(res.Jobs) != 3 {
		t.Fatalf("after the limit was removed and set again: %d jobs, want 3 (the claims counted before are forgotten)", len(res.Jobs))
	}
}

func TestMaxRunningCapsUnackJobs(t *testing.T) {
	s, _ := newClocked()
	for i := range 5 {
		mustEnqueue(t, s, newJob(string(rune('a'+i))))
	}
	if err := s.SetQueueConfig(context.Background(), testQueue, store.QueueConfig{MaxRunning: 2}); err != nil {
		t.Fatal(err)
	}
	res := claim(t, s, 5, time.Minute)
	if len(res.Jobs) != 2 || res.RetryIn <= 0 {
		t.Fatalf("claimed %d with RetryIn %v, want 2 and a RetryIn", len(res.Jobs), res.RetryIn)
	}
	if res := claim(t, s, 5, time.Minute); len(res.Jobs) != 0 || res.RetryIn <= 0 {
		t.Fatalf("at the cap: claimed %d, RetryIn %v", len(res.Jobs), res.RetryIn)
	}
	j := res.Jobs[0]
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck})
	if res := claim(t, s, 5, time.Minute); len(res.Jobs) != 1 {
		t.Fatalf("after one ack: claimed %d, want 1", len(res.Jobs))
	}
}

func TestThroughputCountsPerClockMinute(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	run := func(id string, out store.Outcome) {
		t.Helper()
		mustEnqueue(t, s, newJob(id))
		c := claim(t, s, 1, time.Minute).Jobs[0]
		if errs := finish(t, s, store.AttemptEnd{Queue: testQueue, ID: id, Token: c.Token, Outcome: out}); errs[0] != nil {
			t.Fatal(errs[0])
		}
	}
	minute := t0.Truncate(time.Minute)
	run("a", store.OutcomeAck)
	run("b", store.OutcomeGarbage)
	run("s", store.OutcomeSnooze) // not counted
	clock.Set(minute.Add(2*time.Minute + 59*time.Second))
	run("c", store.OutcomeAck)
	run("d", store.OutcomeRetry)

	pts, err := s.GetThroughput(ctx, testQueue, minute.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []store.ThroughputPoint{
		{Minute: minute, Done: 1, Failed: 1},
		{Minute: minute.Add(2 * time.Minute), Done: 1, Failed: 1},
	}
	if len(pts) != len(want) {
		t.Fatalf("points %+v, want %+v", pts, want)
	}
	for i := range want {
		if !pts[i].Minute.Equal(want[i].Minute) || pts[i].Done != want[i].Done || pts[i].Failed != want[i].Failed {
			t.Fatalf("point %d = %+v, want %+v", i, pts[i], want[i])
		}
	}
	if pts, _ := s.GetThroughput(ctx, testQueue, minute.Add(time.Minute+30*time.Second)); len(pts) != 1 {
		t.Fatalf("since a later minute: %+v, want only the last point", pts)
	}
	clock.Set(minute.Add(3 * time.Hour))
	if pts, _ := s.GetThroughput(ctx, testQueue, minute.Add(-time.Hour)); len(pts) != 2 || pts[0].Span != time.Minute {
		t.Fatalf("three hours later: %+v, want the minutes still kept (a day)", pts)
	}
	clock.Set(minute.Add(25 * time.Hour))
	pts, _ = s.GetThroughput(ctx, testQueue, minute.Add(-time.Hour))
	if len(pts) != 1 || pts[0].Span != time.Hour || !pts[0].Minute.Equal(minute.Truncate(time.Hour)) || pts[0].Done != 2 || pts[0].Failed != 2 {
		t.Fatalf("a day later: %+v, want one hour with both minutes", pts)
	}
	clock.Set(minute.Add(31 * 24 * time.Hour))
	if pts, _ := s.GetThroughput(ctx, testQueue, minute.Add(-time.Hour)); len(pts) != 0 {
		t.Fatalf("a month later: %+v, want the old hours forgotten", pts)
	}
}

func TestUniqueForExpiresOnTheClock(t *testing.T) {
	s, clock := newClocked()
	a := newJob("a")
	a.UniqueKey, a.UniqueFor = "u", time.Minute
	b := newJob("b")
	b.UniqueKey = "u"
	mustEnqueue(t, s, a)
	if res := mustEnqueue(t, s, b); !res[0].Duplicate || res[0].ID != "a" {
		t.Fatalf("within UniqueFor: %+v, want duplicate of a", res[0])
	}
	clock.Set(ms(time.Minute))
	if res := mustEnqueue(t, s, b); res[0].Duplicate {
		t.Fatalf("after UniqueFor: %+v, want added", res[0])
	}
	// a finishing must not release the key b now holds.
	c := claim(t, s, 1, time.Minute).Jobs[0]
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeAck})
	if res := mustEnqueue(t, s, newUnique("c", "u")); !res[0].Duplicate || res[0].ID != "b" {
		t.Fatalf("after a's ack: %+v, want duplicate of b", res[0])
	}
}

func newUnique(id, key string) *store.NewJob {
	j := newJob(id)
	j.UniqueKey = key
	return j
}

func TestWorkersExpireOnTheClock(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	for _, w := range []struct {
		id  string
		ttl time.Duration
	}{{"w2", 10 * time.Second}, {"w1", 20 * time.Second}} {
		if err := s.Heartbeat(ctx, store.WorkerInfo{ID: w.id, Queues: map[string]int{"q": 1}}, w.ttl); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := s.ListWorkers(ctx)
	if err != nil || len(ws) != 2 || ws[0].ID != "w1" || ws[1].ID != "w2" || !ws[0].HeartbeatAt.Equal(ms(0)) {
		t.Fatalf("workers %+v %v, want w1, w2 stamped now", ws, err)
	}
	ws[0].Queues["q"] = 99
	clock.Set(ms(10 * time.Second))
	ws, _ = s.ListWorkers(ctx)
	if len(ws) != 1 || ws[0].ID != "w1" || ws[0].Queues["q"] != 1 {
		t.Fatalf("after 10s: %+v, want w1 alone, unchanged", ws)
	}
	if err := s.RemoveWorker(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	if ws, _ := s.ListWorkers(ctx); len(ws) != 0 {
		t.Fatalf("after RemoveWorker: %+v", ws)
	}
}
