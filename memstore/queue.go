package memstore

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
)

// uniqueHold records which job holds a unique key, and until when (Unix ms;
// zero means until the job finishes).
type uniqueHold struct {
	id    string
	until int64
}

// queue is the state of one queue. Everything but name and seen is guarded
// by mu.
type queue struct {
	name string
	// seen is set once a job was enqueued or the config was set: Queues lists
	// only those. Queues created by waiters alone stay hidden.
	seen atomic.Bool

	mu      sync.Mutex
	cfg     store.QueueConfig
	jobs    map[string]*job
	ready   readyLevels
	taken   []*job // a claim's jobs (claim.go), kept for reuse
	pending jobHeap
	unack   jobHeap
	retry   jobHeap
	garbage jobHeap
	done    jobHeap
	unique  map[string]uniqueHold
	ticks   map[string]time.Time // last tick per schedule
	seq     uint64
	births  uint64 // the last job.born given
	rate    rateLog
	// kinds is the kind index when cfg.KindIndex, else nil.
	kinds kindIndex
	// heldUntil is when a hold asked by a handler ends (Unix ms); no claim
	// before then (AttemptEnd.Hold).
	heldUntil int64
	tput      *throughput // nil until an attempt ends (see throughput.add)

	// ready and sched are the queue's signals to WaitReady and
	// WaitSchedule (see wait.go).
	readySig, schedSig signal

	// free holds deleted jobs for reuse, sparing the allocator and the
	// garbage collector in the enqueue→claim→ack cycle.
	free []*job

	// events is the queue's event stream and newEvents the store's
	// broadcast of a new entry in any queue (events.go); awaited holds the
	// WaitJob calls by job ID (wait_job.go).
	events    eventLog
	newEvents *broadcast
	awaited   watchers[store.JobEnd]

	// wfInbox is where the ends of workflow tasks' jobs are noted
	// (workflow_apply.go).
	wfInbox *wfInbox
}

func newQueue(name string, readyHub, schedHub *hub, newEvents *broadcast) *queue {
	q := &queue{
		name:      name,
		newEvents: newEvents,
		jobs:      make(map[string]*job),
		unique:    make(map[string]uniqueHold),
		ticks:     make(map[string]time.Time),
	}
	q.readySig = signal{queue: name, hub: readyHub}
	q.schedSig = signal{queue: name, hub: schedHub}
	return q
}

// heapOf returns the heap holding jobs in st, or nil for ready.
func (q *queue) heapOf(st store.JobState) *jobHeap {
	switch st {
	case store.StatePending:
		return &q.pending
	case store.StateUnack:
		return &q.unack
	case store.StateRetry:
		return &q.retry
	case store.StateGarbage:
		return &q.garbage
	case store.StateDone:
		return &q.done
	}
	return nil
}

// count returns how many jobs are in st.
func (q *queue) count(st store.JobState) int {
	if st == store.StateReady {
		return q.ready.n
	}
	if h := q.heapOf(st); h != nil {
		return len(*h)
	}
	return 0
}

// attach puts j, detached, into st ordered by at (ignored for ready, where j
// goes to the back), and wakes the waiters the move concerns.
func (q *queue) attach(j *job, st store.JobState, at int64) {
	j.rec.State = st
	if st == store.StateReady || st == store.StatePending {
		j.endedBy = 0 // moved on from where a claim's end put it
	}
	j.at = at
	q.seq++
	j.seq = q.seq
	if st == store.StateReady {
		q.ready.pushBack(j)
		q.signalReady()
		return
	}
	h := q.heapOf(st)
	h.push(j)
	if j.idx == 0 {
		// j is now the earliest of its state: the next due time of the
		// queue may have moved earlier.
		q.signalSchedule()
	}
}

// attachFront puts j, detached, at the front of ready.
func (q *queue) attachFront(j *job) {
	j.rec.State = store.StateReady
	j.endedBy = 0
	q.seq++
	j.seq = q.seq
	q.ready.pushFront(j)
	q.signalReady()
}

// detach takes j out of its state's container; j stays in jobs.
func (q *queue) detach(j *job) {
	if j.rec.State == store.StateReady {
		q.ready.remove(j)
		return
	}
	q.heapOf(j.rec.State).remove(j)
}

// drop removes j from the queue altogether and releases its unique key.
func (q *queue) drop(j *job) {
	q.detach(j)
	q.forget(j)
}

// releaseUnique frees j's unique key if j still holds it.
func (q *queue) releaseUnique(j *job) {
	if k := j.rec.UniqueKey; k != "" {
		if h, ok := q.unique[k]; ok && h.id == j.rec.ID {
			delete(q.unique, k)
		}
	}
}

// leaveUnack clears the claim of j, which was just detached from unack, and
// wakes claimers if a MaxRunning cap may have held ready jobs back. When
// the last lease is gone it tells the scheduler, which may be set to look
// at the queue when that lease expires, that it need not.
func (q *queue) leaveUnack(j *job) {
	j.rec.Token = 0
	j.rec.Deadline = time.Time{}
	roomAgain := j.rec.Group != "" && q.ready.ended(j, q.cfg.GroupMaxRunning)
	if roomAgain || (q.cfg.MaxRunning > 0 && q.ready.n > 0) {
		q.signalReady()
	}
	if len(q.unack) == 0 {
		q.signalSchedule()
	}
}

// toGarbage moves j, detached, to garbage as of now and releases its key;
// its WaitJob callers learn it ended, and its workflow, when it is a task's
// job, that it failed (or was cancelled, when flagged).
func (q *queue) toGarbage(j *job, now time.Time, nowMs int64) {
	j.rec.FinishedAt = now
	q.releaseUnique(j)
	q.attach(j, store.StateGarbage, nowMs)
	q.ended(j)
	end := wfFailed
	if j.rec.Cancelled {
		end = wfCancelled
	}
	q.taskNote(j, end, nil)
}
