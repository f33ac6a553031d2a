package memstore

import (
	"container/heap"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
)

// wfEnd is what happened to a task's job, as its queue notes it.
type wfEnd uint8

const (
	wfSucceeded wfEnd = iota + 1 // acked
	wfFailed                     // reached garbage, or deleted before it was done
	wfCancelled                  // reached garbage cancelled
	wfRequeued                   // requeued from garbage
)

// wfNote is one end of a task's job not yet applied to its workflow.
type wfNote struct {
	queue, id string
	end       wfEnd
	result    []byte
}

// wfInbox holds the ends of tasks' jobs that queues noted, in order, until
// a call holding the workflows' lock applies them. Its mutex is a leaf:
// queues take it with their own held.
type wfInbox struct {
	mu    sync.Mutex
	notes []wfNote
	// unsettled counts the notes not yet applied (taken or not). A caller
	// that noted an end and then sees zero knows it was applied.
	unsettled atomic.Int64
}

// taskNote notes an end of j when it may be a workflow task's job (its ID
// has the form of one). q.mu must be held.
func (q *queue) taskNote(j *job, end wfEnd, result []byte) {
	if q.wfInbox == nil || strings.IndexByte(j.rec.ID, '~') < 0 {
		return
	}
	in := q.wfInbox
	in.mu.Lock()
	in.notes = append(in.notes, wfNote{queue: q.name, id: j.rec.ID, end: end, result: cloneBytes(result)})
	in.unsettled.Add(1)
	in.mu.Unlock()
}

// settleWorkflows applies the inbox to the workflows when it holds ends
// not yet applied. Every call that may end a task's job calls it after
// letting go of its queue, so the end is applied before it returns. It must
// not be called with a queue's mutex or the workflows' lock held.
func (s *Store) settleWorkflows() {
	if s.wf.inbox.unsettled.Load() == 0 {
		return
	}
	s.wf.mu.Lock()
	s.applyInbox()
	s.wf.mu.Unlock()
}

// applyInbox applies every noted end, in order, until the inbox is empty.
// s.wf.mu must be held, and no queue's mutex.
func (s *Store) applyInbox() {
	in := &s.wf.inbox
	for {
		in.mu.Lock()
		notes := in.notes
		in.notes = nil
		in.mu.Unlock()
		if len(notes) == 0 {
			return
		}
		for i := range notes {
			s.applyNote(&notes[i])
			in.unsettled.Add(-1)
		}
	}
}

// applyNote applies one end to the task whose job it concerns, if any. A
// task moves only from enqueued to an end, or, requeued, from failed or
// cancelled back to enqueued; anything else (a done job requeued and run
// again, a job that is no released task's) changes nothing.
func (s *Store) applyNote(n *wfNote) {
	wf, name, ok := store.ParseTaskJobID(n.id)
	if !ok {
		return
	}
	now, nowMs := s.now()
	w := s.getWorkflow(wf, now)
	if w == nil {
		return
	}
	t := w.byName[name]
	if t == nil || !t.released || t.queue != n.queue {
		return
	}
	switch n.end {
	case wfRequeued:
		if t.state != store.TaskFailed && t.state != store.TaskCancelled {
			return
		}
		w.reopen(t)
	default:
		if t.state != store.TaskEnqueued {
			return
		}
		st := store.TaskFailed
		switch n.end {
		case wfSucceeded:
			st = store.TaskSucceeded
			t.result = n.result
		case wfCancelled:
			st = store.TaskCancelled
		}
		w.setState(t, st)
		var rel []*wfTask
		w.cascade([]*wfTask{t}, &rel)
		s.enqueueTasks(rel, now, nowMs)
	}
	s.checkEnd(w, now)
}

// satisfied reports whether dep, ended, lets t run (see store.Workflows).
func satisfied(dep, t *wfTask) bool {
	return dep.state == store.TaskSucceeded || dep.allowFailure || t.anyOutcome
}

// depEnded applies the end of dep to its dependent t, if t waits: t
// counts it, and is released when it was the last; or t is skipped and
// joins work, the ended tasks whose dependents are still to learn it.
func (w *workflow) depEnded(dep, t *wfTask, work, rel *[]*wfTask) {
	if t.state != store.TaskWaiting {
		return
	}
	if !satisfied(dep, t) {
		w.setState(t, store.TaskSkipped)
		*work = append(*work, t)
		return
	}
	if t.remaining--; t.remaining == 0 {
		w.release(t, work, rel)
	}
}

// release lets the waiting task t go: enqueued, into rel for the caller to
// enqueue its job; or, in a cancelled workflow, cancelled (into work).
func (w *workflow) release(t *wfTask, work, rel *[]*wfTask) {
	if w.cancelled {
		w.setState(t, store.TaskCancelled)
		t.job = nil
		*work = append(*work, t)
		return
	}
	w.setState(t, store.TaskEnqueued)
	*rel = append(*rel, t)
}

// cascade applies the ends of the tasks of work to their dependents, and
// onward through the dependents that end in turn.
func (w *workflow) cascade(work []*wfTask, rel *[]*wfTask) {
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		for _, d := range x.dependents {
			w.depEnded(x, d, &work, rel)
		}
	}
}

// reopen moves t, failed or cancelled and its job requeued, back to
// enqueued, and makes the tasks skipped because of it wait again (with
// their dependencies not yet ended counted again), onward through their
// dependents, unless another dependency still skips them.
func (w *workflow) reopen(t *wfTask) {
	w.setState(t, store.TaskEnqueued)
	t.result = nil
	stack := []*wfTask{t}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range x.dependents {
			if d.state != store.TaskSkipped {
				continue
			}
			open, blocked := 0, false
			for _, dep := range d.deps {
				if !dep.state.Ended() {
					open++
				} else if !satisfied(dep, d) {
					blocked = true
					break
				}
			}
			if blocked {
				continue
			}
			// open is at least one: x, a dependency of d, is open.
			w.setState(d, store.TaskWaiting)
			d.remaining = open
			stack = append(stack, d)
		}
	}
}

// enqueueTasks enqueues the jobs of tasks, just released, into their queues as
// Enqueue would, now. A job of the same ID that has ended in the queue
// (the task of an earlier workflow of the same ID, kept in done or
// garbage) is deleted first; one still live is taken as the task's job.
// s.wf.mu must be held.
func (s *Store) enqueueTasks(tasks []*wfTask, now time.Time, nowMs int64) {
	if len(tasks) == 0 {
		return
	}
	l := queueLock{s: s}
	for _, t := range tasks {
		if t.released {
			continue
		}
		t.released = true
		q := l.get(t.queue, true)
		if old := q.jobs[t.jobID]; old != nil && (old.rec.State == store.StateDone || old.rec.State == store.StateGarbage) {
			q.emit(store.EventDeleted, old, now)
			q.drop(old)
		}
		q.enqueue(t.job, now, nowMs)
		t.job = nil
	}
	l.release()
}

// checkEnd ends w when none of its tasks is waiting or enqueued, and
// re-opens it when one is again. s.wf.mu must be held.
func (s *Store) checkEnd(w *workflow, now time.Time) {
	open := w.counts[store.TaskWaiting] + w.counts[store.TaskEnqueued]
	if open > 0 {
		if w.state != store.WorkflowRunning {
			w.state = store.WorkflowRunning
			w.endedAt = time.Time{}
		}
		return
	}
	if w.state != store.WorkflowRunning {
		return
	}
	w.state = store.WorkflowSucceeded
	switch {
	case w.cancelled:
		w.state = store.WorkflowCancelled
	case w.counts[store.TaskSkipped] > 0:
		w.state = store.WorkflowFailed
	default:
		for _, t := range w.tasks {
			if (t.state == store.TaskFailed || t.state == store.TaskCancelled) && !t.allowFailure {
				w.state = store.WorkflowFailed
				break
			}
		}
	}
	w.endedAt = now
	heap.Push(&s.wf.ended, expiry{at: now.Add(w.retention), id: w.id})
	s.workflowEnded(w)
}
