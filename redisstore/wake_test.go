package redisstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestLastAckWithJobsReadyLeavesTheSchedulerAlone: when the last lease of a
// queue goes while jobs are ready, claims come next and the scheduler
// need not look at the queue (finish.lua wakes it only when nothing is
// ready). Before the ready state had one way to ask, finish looked at the
// priority-0 list only, so a queue whose ready jobs all had a priority (or
// a group) woke every scheduler with every last ack.
func TestLastAckWithJobsReadyLeavesTheSchedulerAlone(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*store.NewJob)
	}{
		{"priority", func(j *store.NewJob) { j.Priority = 2 }},
		{"group", func(j *store.NewJob) { j.Group = "g" }},
		{"plain", func(*store.NewJob) {}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			prefix := redistest.Prefix(t)
			s, rdb := newStore(t, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
			var jobs []*store.NewJob
			for _, id := range []string{"a", "b"} {
				j := job("q", id)
				c.set(j)
				jobs = append(jobs, j)
			}
			mustEnqueue(t, s, jobs...)
			sub := ackOneWatching(t, s, rdb, "q", prefix+":sched")
			// A job due in an hour in another queue wakes the schedulers:
			// the first message must be its.
			mustEnqueue(t, s, &store.NewJob{ID: "marker", Queue: "marker", Kind: "k", Delay: time.Hour})
			msg, err := sub.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Payload != "marker" {
				t.Fatalf("the last ack of a queue with a job ready woke the schedulers (%q)", msg.Payload)
			}
		})
	}
}

// TestLastAckWakesTheSchedulerOnceASecond: the last lease of a queue with
// nothing ready going wakes the schedulers, so that one set to look at the
// queue when that lease expires need not (after a burst over many queues
// a wave of such visits would follow); but not again within a second of
// the server's clock: in a trickle unack empties after nearly every job,
// and each wake-up cost a Maintain call and made the next claim cost
// another (2,000 jobs a second: 4.3 script calls per job, 2.8 now). A
// second ack the server saw a second or more after the first wakes them
// again.
func TestLastAckWakesTheSchedulerOnceASecond(t *testing.T) {
	ctx := t.Context()
	prefix := redistest.Prefix(t)
	s, rdb := newStore(t, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	sub := rdb.Subscribe(ctx, prefix+":sched")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	// upTo reads the schedulers' channel up to marker, a job due in an
	// hour enqueued into a queue of its own, and returns how many messages
	// named queue q before it.
	upTo := func(marker string) int {
		t.Helper()
		mustEnqueue(t, s, &store.NewJob{ID: marker, Queue: marker, Kind: "k", Delay: time.Hour})
		n := 0
		for {
			msg, err := sub.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch msg.Payload {
			case marker:
				return n
			case "q":
				n++
			}
		}
	}
	serverMs := func() int64 {
		t.Helper()
		tm, err := rdb.Time(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMilli()
	}
	// runOne runs job id through the queue and returns the server's time
	// just before and just after its ack.
	runOne := func(id string) (before, after int64) {
		t.Helper()
		mustEnqueue(t, s, job("q", id))
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("claim: %v, %v", res.Jobs, err)
		}
		upTo("claimed-" + id) // a claim onto an empty unack tells of its lease
		before = serverMs()
		if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "q", ID: id, Token: res.Jobs[0].Token, Outcome: store.OutcomeAck}}); err != nil {
			t.Fatal(err)
		}
		return before, serverMs()
	}
	// The ack that woke them did so between wokeLo and wokeHi.
	wokeLo, wokeHi := runOne("a")
	if n := upTo("acked-a"); n != 1 {
		t.Fatalf("the first last ack of a queue with nothing ready sent %d wake-ups to the schedulers, want 1", n)
	}
	for i := range 5 {
		id := fmt.Sprint("b", i)
		before, after := runOne(id)
		n := upTo("acked-" + id)
		switch {
		case after-wokeLo < 1000:
			if n != 0 {
				t.Fatalf("a last ack less than %d ms after the one that woke the schedulers sent %d wake-ups, want none", after-wokeLo, n)
			}
			return
		case before-wokeHi >= 1000:
			if n != 1 {
				t.Fatalf("a last ack more than %d ms after the one that woke the schedulers sent %d wake-ups, want 1", before-wokeHi, n)
			}
			wokeLo, wokeHi = before, after
		}
		// Else the second passed during the ack: try again.
	}
	t.Fatal("no second last ack fell within a second of the one that woke the schedulers in 5 tries")
}

// ackOneWatching claims one job of queue q, subscribes to channel, then
// acks the job, and returns the subscription (closed when t ends): what
// the ack published comes first on it.
func ackOneWatching(t *testing.T, s *redisstore.Store, rdb *redis.Client, q, channel string) *redis.PubSub {
	t.Helper()
	ctx := t.Context()
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("claim: %v, %v", res.Jobs, err)
	}
	sub := rdb.Subscribe(ctx, channel)
	t.Cleanup(func() { sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: res.Jobs[0].ID, Token: res.Jobs[0].Token, Outcome: store.OutcomeAck}}); err != nil {
		t.Fatal(err)
	}
	return sub
}

// TestAckUnderARateLimitAloneWakesNoClaimer: a job leaving unack frees a
// place under a MaxRunning cap, and the finish wakes idle claimers when
// jobs are ready; a rate limit alone frees nothing when a job ends, so
// the finish must not wake them (each woken worker would make a claim the
// limit turns away). limits_freed read a MaxRunning absent from the
// settings as set, and every ack with jobs ready woke the queue's
// workers.
func TestAckUnderARateLimitAloneWakesNoClaimer(t *testing.T) {
	ctx := t.Context()
	prefix := redistest.Prefix(t)
	s, rdb := newStore(t, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	if err := s.SetQueueConfig(ctx, "q", store.QueueConfig{RateLimit: 1000, RatePeriod: time.Second}); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("q", "a"), job("q", "b"))
	sub := ackOneWatching(t, s, rdb, "q", prefix+":ready")
	// A job enqueued into an empty queue wakes its claimers: the first
	// message must be its.
	mustEnqueue(t, s, job("marker", "m"))
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Payload != "marker" {
		t.Fatalf("an ack under a rate limit alone, with a job ready, woke the claimers of %q", msg.Payload)
	}
}
