package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// Cases of requests hopper.Inspector never sends but a direct caller of
// store.Admin may: a store refuses them with a clear error, the same in
// every store, and changes nothing.
func adminInvalidCases() []adminCase {
	return []adminCase{
		{name: "Queue", fn: testAdminInvalidQueue},
		{name: "RequeueDeleteState", fn: testAdminInvalidState},
		{name: "QueueConfig", fn: testAdminInvalidConfig},
	}
}

// invalidQueues are queue names no store may accept: empty, and one with a
// space.
var invalidQueues = []string{"", "bad queue"}

// testAdminInvalidQueue: every Admin method that takes a queue (and
// ConfigSwapper's) refuses an invalid name with an error wrapping
// store.ErrInvalidQueue, and ListQueues lists no such queue afterwards.
func testAdminInvalidQueue(t *testing.T, s store.Store, a store.Admin) {
	ctx := t.Context()
	cs, _ := store.As[store.ConfigSwapper](s)
	for _, q := range invalidQueues {
		_, err := a.GetQueueStats(ctx, q)
		requireErrIs(t, "GetQueueStats("+q+")", err, store.ErrInvalidQueue)
		requireErrIs(t, "SetQueueConfig("+q+")", a.SetQueueConfig(ctx, q, store.QueueConfig{}), store.ErrInvalidQueue)
		_, err = a.GetThroughput(ctx, q, time.Now().Add(-time.Hour))
		requireErrIs(t, "GetThroughput("+q+")", err, store.ErrInvalidQueue)
		_, err = a.GetJob(ctx, q, "a")
		requireErrIs(t, "GetJob("+q+")", err, store.ErrInvalidQueue)
		_, err = a.CancelJob(ctx, q, "a")
		requireErrIs(t, "CancelJob("+q+")", err, store.ErrInvalidQueue)
		for _, ids := range [][]string{nil, {"a"}} {
			_, err = a.RequeueJobs(ctx, q, store.StateGarbage, ids)
			requireErrIs(t, "RequeueJobs("+q+")", err, store.ErrInvalidQueue)
			_, err = a.DeleteJobs(ctx, q, store.StateGarbage, ids)
			requireErrIs(t, "DeleteJobs("+q+")", err, store.ErrInvalidQueue)
		}
		if cs != nil {
			_, err = cs.CompareAndSwapQueueConfig(ctx, q, store.QueueConfig{}, store.QueueConfig{Paused: true})
			requireErrIs(t, "CompareAndSwapQueueConfig("+q+")", err, store.ErrInvalidQueue)
		}
	}
	queues, err := s.ListQueues(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range invalidQueues {
		if slices.Contains(queues, q) {
			t.Fatalf("ListQueues after the refused requests: %q lists %q", queues, q)
		}
	}
}

// testAdminInvalidState: RequeueJobs from a state jobs cannot be requeued
// from (empty, unknown, ready, unack) and DeleteJobs from one they cannot
// be deleted from (empty, unknown, unack) fail with an error wrapping
// store.ErrInvalidState, for all jobs as for given ones, on a queue with a
// job in every state as on one never seen, and move nothing.
func testAdminInvalidState(t *testing.T, s store.Store, a store.Admin) {
	ctx := t.Context()
	q := newQueue(t)
	// The states reached by a claim first, so that each claims its own job.
	var all []string
	for _, st := range []store.JobState{store.StateUnack, store.StateRetry, store.StateGarbage, store.StateDone, store.StatePending, store.StateReady} {
		put(t, s, a, job(q, string(st)), st)
		all = append(all, string(st))
	}
	want := store.StateCounts{Pending: 1, Ready: 1, Unack: 1, Retry: 1, Garbage: 1, Done: 1}
	for _, queue := range []string{q, newQueue(t)} {
		for _, ids := range [][]string{nil, all} {
			for _, from := range []store.JobState{"", "bogus", store.StateReady, store.StateUnack} {
				n, err := a.RequeueJobs(ctx, queue, from, ids)
				if n != 0 {
					t.Fatalf("RequeueJobs(%q, %q, %q): moved %d, want 0", queue, from, ids, n)
				}
				requireErrIs(t, "RequeueJobs from "+string(from), err, store.ErrInvalidState)
			}
			for _, from := range []store.JobState{"", "bogus", store.StateUnack} {
				n, err := a.DeleteJobs(ctx, queue, from, ids)
				if n != 0 {
					t.Fatalf("DeleteJobs(%q, %q, %q): deleted %d, want 0", queue, from, ids, n)
				}
				requireErrIs(t, "DeleteJobs from "+string(from), err, store.ErrInvalidState)
			}
		}
	}
	requireCounts(t, a, q, want)
	for _, id := range all {
		requireState(t, a, q, id, store.JobState(id))
	}
}

// testAdminInvalidConfig: SetQueueConfig (and ConfigSwapper's swap) refuse
// a config that QueueConfig.Normalize refuses with an error wrapping
// store.ErrInvalidConfig, and keep the settings they had.
func testAdminInvalidConfig(t *testing.T, s store.Store, a store.Admin) {
	ctx := t.Context()
	q := newQueue(t)
	good := store.QueueConfig{MaxRunning: 3}
	if err := a.SetQueueConfig(ctx, q, good); err != nil {
		t.Fatal(err)
	}
	cs, _ := store.As[store.ConfigSwapper](s)
	for _, cfg := range []store.QueueConfig{{MaxRunning: -1}, {Retention: -time.Second}, {RateLimit: 5, RatePeriod: time.Microsecond}, {GroupMaxRunning: -1}} {
		requireErrIs(t, "SetQueueConfig("+q+", an invalid config)", a.SetQueueConfig(ctx, q, cfg), store.ErrInvalidConfig)
		if cs != nil {
			_, err := cs.CompareAndSwapQueueConfig(ctx, q, good, cfg)
			requireErrIs(t, "CompareAndSwapQueueConfig("+q+", an invalid config)", err, store.ErrInvalidConfig)
		}
	}
	if got := stats(t, a, q).Config; got != good {
		t.Fatalf("config after the refused requests: %+v, want %+v", got, good)
	}
}
