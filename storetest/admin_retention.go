package storetest

import (
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// retentionCases check which retention an ack applies: the request's
// Retention (the worker sends the job's own), else the queue's
// QueueConfig.Retention as it is when the store applies the ack, else
// none. The store never looks up the job's own.
func retentionCases() []adminCase {
	return []adminCase{
		{name: "QueueRetention", fn: testRetentionQueue},
		{name: "RequestWinsOverQueue", fn: testRetentionRequestWins},
		{name: "JobRetentionNotLookedUp", fn: testRetentionJobNotLookedUp},
		{name: "QueueRetentionNotLookedUpForJob", fn: testRetentionQueueOverJob},
	}
}

// testRetentionQueue: an ack with Retention 0 in a queue with a retention
// keeps the job in done for the queue's retention.
func testRetentionQueue(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{Retention: long})
	if got := stats(t, a, q).Config.Retention; got != long {
		t.Fatalf("QueueStats.Config.Retention = %v after SetQueueConfig with %v", got, long)
	}
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Result = []byte("kept by the queue's retention")
	before := time.Now()
	finishOK(t, s, r)
	requireDone(t, a, q, "a", "kept by the queue's retention", before, time.Now())
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "a job kept in done for the queue's retention of 1h")
}

func testRetentionRequestWins(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{Retention: long})
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Retention = 10 * time.Minute
	before := time.Now()
	finishOK(t, s, r)
	requireDone(t, a, q, "a", "", before, time.Now())
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), 10*time.Minute, "a job acked with Retention 10m in a queue that keeps them 1h")
}

// testRetentionJobNotLookedUp: a job enqueued with a retention of its own
// and acked with Retention 0 is deleted when the queue has no retention:
// sending the job's own is the worker's job.
func testRetentionJobNotLookedUp(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	j := job(q, "a")
	j.Retention = long
	add(t, s, j)
	finishOK(t, s, outcome(claimOne(t, s, q, "a", long), store.OutcomeAck))
	requireNotFound(t, a, q, "a", "an ack with Retention 0 of a job with a retention of its own, in a queue without one")
	requireCounts(t, a, q, store.StateCounts{})
}

// testRetentionQueueOverJob: with Retention 0 in the request, the queue's
// retention applies even to a job that has one of its own.
func testRetentionQueueOverJob(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{Retention: 10 * time.Minute})
	j := job(q, "a")
	j.Retention = long
	add(t, s, j)
	before := time.Now()
	finishOK(t, s, outcome(claimOne(t, s, q, "a", long), store.OutcomeAck))
	requireDone(t, a, q, "a", "", before, time.Now())
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), 10*time.Minute, "a job with Retention 1h acked with 0 in a queue that keeps them 10m")
}
