package memstore

import (
	"time"

	"github.com/hopperq/hopper/store"
)

// job is one job as the store holds it. Every field is guarded by the mutex of
// the queue that holds the job.
type job struct {
	rec store.JobRecord
	// at orders the job within its state, in Unix milliseconds: the due time
	// (pending, retry), the lease deadline (unack), the finish time (garbage)
	// or the expiry (done). Unused in ready.
	at int64
	// seq breaks ties of at: the order in which jobs entered their state.
	seq uint64
	// idx is the job's position in its state's heap.
	idx int
	// prev and next link the ready list.
	prev, next *job
	// born is the job's birth number in its queue, given at enqueue: it
	// tells the job from a later one with the same ID (kind_index.go).
	born uint64
	// after is how long a paced claim's job waits before it starts, in µs
	// (ClaimResult.StartAfter): set by the claim that takes it.
	after int64
	// endedBy is the token of the claim whose end (an ack, a retry, a
	// death, a cancel) put the job in done, retry or garbage: kept while
	// it stays there or Cancel moves it on from retry to garbage, 0 once
	// it goes to ready or pending (queue.attach), and for a job no claim's
	// end put there. The same end sent again, its reply lost, finds it
	// (queue.finish, endedIn).
	endedBy uint64
}

// Limits of the free list of jobs.
const (
	maxFreeJobs   = 1024 // jobs kept for reuse per queue
	maxReusedArgs = 1024 // largest args buffer kept with a reused job
)

// newJob returns a zero job from the free list, or a new one. Its Args may
// have capacity to reuse (length zero).
func (q *queue) newJob() *job {
	if n := len(q.free); n > 0 {
		j := q.free[n-1]
		q.free[n-1] = nil
		q.free = q.free[:n-1]
		return j
	}
	return new(job)
}

// forget deletes j, detached, from the queue: it releases its unique key and
// keeps the struct for reuse. Nothing may refer to j afterwards.
func (q *queue) forget(j *job) {
	q.releaseUnique(j)
	delete(q.jobs, j.rec.ID)
	if q.kinds != nil {
		q.unindexKind(j.rec.Kind)
	}
	if len(q.free) < maxFreeJobs {
		args := j.rec.Args[:0]
		if cap(args) > maxReusedArgs {
			args = nil
		}
		*j = job{}
		j.rec.Args = args
		q.free = append(q.free, j)
	}
}

// addError appends e to j's history, dropping the oldest beyond
// store.MaxErrorHistory. A zero At is stamped with now and a zero Attempt
// with the job's current attempt.
func addError(j *job, e store.AttemptError, now time.Time) {
	if e.At.IsZero() {
		e.At = now
	}
	if e.Attempt == 0 {
		e.Attempt = j.rec.Attempt
	}
	errs := j.rec.Errors
	if len(errs) >= store.MaxErrorHistory {
		n := copy(errs, errs[len(errs)-store.MaxErrorHistory+1:])
		errs = errs[:n]
	}
	j.rec.Errors = append(errs, e)
}
