package redisstore_test

import (
	"testing"
	"time"

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
			res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
			if err != nil || len(res.Jobs) != 1 {
				t.Fatalf("claim: %v, %v", res.Jobs, err)
			}
			sub := rdb.Subscribe(ctx, prefix+":sched")
			defer sub.Close()
			if _, err := sub.Receive(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "q", ID: res.Jobs[0].ID, Token: res.Jobs[0].Token, Outcome: store.OutcomeAck}}); err != nil {
				t.Fatal(err)
			}
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
