package memstore

import (
	"container/heap"
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
)

// Workflows. The store keeps every workflow in one record, guarded by
// wfState.mu; the tasks' jobs live in their queues like any job. Lock
// order: wfState.mu before any queue's mutex. A queue never takes
// wfState.mu: where a task's job ends (Finish, Maintain, Cancel, Delete,
// Requeue), the queue notes the end in the store's inbox (a leaf lock) and
// the call, once it let go of the queue, applies the inbox to the
// workflows before it returns (settleWorkflows). The inbox is applied in
// the order the ends happened, so one job's ends are never reordered.

var _ store.Workflows = (*Store)(nil)

// wfMaintainMax is the longest MaintainWorkflows asks to be left alone.
const wfMaintainMax = 5 * time.Second

// wfState is the store's workflows.
type wfState struct {
	mu    sync.Mutex
	byID  map[string]*workflow
	ended expiryHeap
	inbox wfInbox
	// watches are the WatchWorkflow calls waiting, by workflow
	// (wait_workflow.go).
	watches watchers[store.WorkflowEnd]
}

// workflow is one workflow as the store holds it. Guarded by wfState.mu.
type workflow struct {
	id, name  string
	state     store.WorkflowState
	cancelled bool
	createdAt time.Time
	endedAt   time.Time
	retention time.Duration
	counts    map[store.TaskState]int
	tasks     []*wfTask // in the order added
	byName    map[string]*wfTask
}

// wfTask is one task of a workflow.
type wfTask struct {
	name, queue, kind, jobID string
	addedBy                  string
	allowFailure, anyOutcome bool
	state                    store.TaskState
	// deps are the tasks it waits for, dependents those waiting for it.
	deps, dependents []*wfTask
	// remaining counts the deps not ended yet while it waits.
	remaining int
	// job is held until the task is released (enqueued), then dropped.
	job *store.NewJob
	// released is set once its job was enqueued: at most once.
	released bool
	// result is what its job's ack carried.
	result []byte
}

// setState moves t to st, keeping the counts.
func (w *workflow) setState(t *wfTask, st store.TaskState) {
	if t.state == st {
		return
	}
	if t.state != "" {
		w.counts[t.state]--
	}
	w.counts[st]++
	t.state = st
}

// expired reports whether w ended and its retention has run out at now.
func (w *workflow) expired(now time.Time) bool {
	return w.state != store.WorkflowRunning && !now.Before(w.endedAt.Add(w.retention))
}

// notFound is ErrWorkflowNotFound for id.
func notFound(id string) error {
	return store.WorkflowNotFound(id)
}

// getWorkflow returns the workflow id, or nil when there is none or its
// retention has run out (it is removed then). s.wf.mu must be held.
func (s *Store) getWorkflow(id string, now time.Time) *workflow {
	w := s.wf.byID[id]
	if w != nil && w.expired(now) {
		delete(s.wf.byID, id)
		return nil
	}
	return w
}

// EnqueueWorkflow stores w (see store.Workflows): its tasks with no
// dependencies are enqueued at once into their queues, as Enqueue would
// (their RunAt or Delay counting from now), the others wait. A workflow
// ID still held (running, or ended within its retention) reports a
// duplicate. Jobs and their args and meta are copied.
func (s *Store) EnqueueWorkflow(ctx context.Context, nw *store.NewWorkflow) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := nw.Validate(); err != nil {
		return false, err
	}
	now, nowMs := s.now()
	s.wf.mu.Lock()
	defer s.wf.mu.Unlock()
	s.applyInbox()
	if s.getWorkflow(nw.ID, now) != nil {
		return true, nil
	}
	ret := nw.Retention
	if ret == 0 {
		ret = store.DefaultWorkflowRetention
	}
	w := &workflow{
		id:        nw.ID,
		name:      nw.Name,
		state:     store.WorkflowRunning,
		createdAt: now,
		retention: ret,
		counts:    make(map[store.TaskState]int, len(store.TaskStates)),
		tasks:     make([]*wfTask, 0, len(nw.Tasks)),
		byName:    make(map[string]*wfTask, len(nw.Tasks)),
	}
	for _, nt := range nw.Tasks {
		w.add(nt, "")
	}
	for _, nt := range nw.Tasks {
		w.link(w.byName[nt.Name], nt.Deps)
	}
	var rel []*wfTask
	for _, t := range w.tasks {
		if t.remaining == 0 {
			w.setState(t, store.TaskEnqueued)
			rel = append(rel, t)
		}
	}
	if s.wf.byID == nil {
		s.wf.byID = make(map[string]*workflow)
	}
	s.wf.byID[w.id] = w
	s.enqueueTasks(rel, now, nowMs)
	return false, nil
}

// add appends a waiting task for nt, its job copied, without links.
func (w *workflow) add(nt *store.NewTask, by string) *wfTask {
	j := copyNewJob(*nt.Job)
	t := &wfTask{
		name:         nt.Name,
		queue:        j.Queue,
		kind:         j.Kind,
		jobID:        j.ID,
		addedBy:      by,
		allowFailure: nt.AllowFailure,
		anyOutcome:   nt.AnyOutcome,
		job:          &j,
	}
	w.setState(t, store.TaskWaiting)
	w.tasks = append(w.tasks, t)
	w.byName[t.name] = t
	return t
}

// link makes t wait for the tasks named deps, which w must hold.
func (w *workflow) link(t *wfTask, deps []string) {
	t.deps = make([]*wfTask, 0, len(deps))
	for _, name := range deps {
		d := w.byName[name]
		t.deps = append(t.deps, d)
		d.dependents = append(d.dependents, t)
	}
	t.remaining = len(deps)
}

// AddTasks adds tasks to the running workflow wf on behalf of its task by
// (see store.Workflows), which is recorded as their AddedBy and not
// checked: the caller is the task's handler. Tasks whose name wf
// already has are left as they are. A new task may depend on tasks of the
// same call and on tasks of wf that are not waiting; a dependency that has
// already ended counts at once (the task may be released, or skipped, by
// this call). Its Blocks must name waiting tasks of wf, which now also
// wait for it (and list it among their Deps). Either every new task is
// added or, on error, none.
func (s *Store) AddTasks(ctx context.Context, wf, by string, tasks []*store.NewTask) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateAddedTasks(wf, by, tasks); err != nil {
		return err
	}
	if len(tasks) == 0 {
		return nil
	}
	now, nowMs := s.now()
	s.wf.mu.Lock()
	defer s.wf.mu.Unlock()
	s.applyInbox()
	w := s.getWorkflow(wf, now)
	if w == nil {
		return notFound(wf)
	}
	if w.state != store.WorkflowRunning || w.cancelled {
		return store.WorkflowClosedError(wf)
	}
	var fresh []*store.NewTask
	isNew := make(map[string]bool)
	for _, nt := range tasks {
		if w.byName[nt.Name] == nil {
			fresh = append(fresh, nt)
			isNew[nt.Name] = true
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	if n := len(w.tasks) + len(fresh); n > store.MaxWorkflowTasks {
		return store.AddTasksRefused(wf, store.RefuseTooMany, "", strconv.Itoa(store.MaxWorkflowTasks))
	}
	for _, nt := range fresh {
		for _, d := range nt.Deps {
			if isNew[d] {
				continue
			}
			switch t := w.byName[d]; {
			case t == nil:
				return store.AddTasksRefused(wf, store.RefuseDepMissing, nt.Name, d)
			case t.state == store.TaskWaiting:
				return store.AddTasksRefused(wf, store.RefuseDepWaiting, nt.Name, d)
			}
		}
		for _, b := range nt.Blocks {
			switch t := w.byName[b]; {
			case isNew[b]:
				return store.AddTasksRefused(wf, store.RefuseBlocksAdded, nt.Name, b)
			case t == nil:
				return store.AddTasksRefused(wf, store.RefuseBlocksMissing, nt.Name, b)
			case t.state != store.TaskWaiting:
				return store.AddTasksRefused(wf, store.RefuseBlocksStarted, nt.Name, b)
			}
		}
	}

	// Valid: add them all.
	added := make([]*wfTask, len(fresh))
	for i, nt := range fresh {
		added[i] = w.add(nt, by)
	}
	for i, nt := range fresh {
		w.link(added[i], nt.Deps)
	}
	for i, nt := range fresh {
		t := added[i]
		for _, b := range nt.Blocks {
			bt := w.byName[b]
			bt.deps = append(bt.deps, t)
			bt.remaining++
			t.dependents = append(t.dependents, bt)
		}
	}
	var work, rel []*wfTask
	for _, t := range added {
		if t.remaining == 0 {
			w.release(t, &work, &rel)
		}
	}
	for _, t := range added {
		for _, d := range t.deps {
			if !isNew[d.name] && d.state.Ended() {
				w.depEnded(d, t, &work, &rel)
			}
		}
	}
	w.cascade(work, &rel)
	s.enqueueTasks(rel, now, nowMs)
	s.checkEnd(w, now)
	return nil
}

// displayState is the workflow's state for messages: cancelled once
// CancelWorkflow was called.
func (w *workflow) displayState() store.WorkflowState {
	if w.cancelled && w.state == store.WorkflowRunning {
		return store.WorkflowCancelled
	}
	return w.state
}

// TaskResults returns copies of the results the named tasks of wf
// recorded when their jobs were acked: nil for a task unknown, not
// succeeded, or acked without a result.
func (s *Store) TaskResults(ctx context.Context, wf string, tasks []string) ([][]byte, error) {
	w, unlock, err := s.lockedWorkflow(ctx, wf)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([][]byte, len(tasks))
	for i, name := range tasks {
		if t := w.byName[name]; t != nil && t.state == store.TaskSucceeded {
			out[i] = cloneBytes(t.result)
		}
	}
	return out, nil
}

// GetWorkflow returns a copy of the workflow id with every task, in the
// order they were added.
func (s *Store) GetWorkflow(ctx context.Context, id string) (*store.WorkflowRecord, error) {
	w, unlock, err := s.lockedWorkflow(ctx, id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return w.fullRecord(), nil
}

// fullRecord returns a copy of w with every task. s.wf.mu must be held.
func (w *workflow) fullRecord() *store.WorkflowRecord {
	rec := w.record()
	rec.Tasks = make([]store.TaskRecord, len(w.tasks))
	for i, t := range w.tasks {
		var deps []string // nil when none
		for _, d := range t.deps {
			deps = append(deps, d.name)
		}
		rec.Tasks[i] = store.TaskRecord{
			Name:         t.name,
			Queue:        t.queue,
			Kind:         t.kind,
			JobID:        t.jobID,
			Deps:         deps,
			AllowFailure: t.allowFailure,
			AnyOutcome:   t.anyOutcome,
			AddedBy:      t.addedBy,
			State:        t.state,
		}
	}
	return &rec
}

// record returns w without its tasks. Counts holds the task states that
// have tasks.
func (w *workflow) record() store.WorkflowRecord {
	counts := make(map[store.TaskState]int, len(w.counts))
	for st, n := range w.counts {
		if n > 0 {
			counts[st] = n
		}
	}
	return store.WorkflowRecord{
		ID:        w.id,
		Name:      w.name,
		State:     w.state,
		Cancelled: w.cancelled,
		CreatedAt: w.createdAt,
		EndedAt:   w.endedAt,
		Retention: w.retention,
		Counts:    counts,
	}
}

// CancelWorkflow cancels the workflow id (see store.Workflows): its
// waiting tasks are cancelled, and the jobs of its enqueued tasks are
// cancelled as Cancel does: moved to garbage when waiting in their queue,
// flagged when running. The workflow ends as cancelled once its last task
// has ended, at once when none was running. An ended workflow is left as
// it is.
func (s *Store) CancelWorkflow(ctx context.Context, id string) error {
	if err := store.ValidateWorkflowID(id); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	now, nowMs := s.now()
	s.wf.mu.Lock()
	defer s.wf.mu.Unlock()
	s.applyInbox()
	w := s.getWorkflow(id, now)
	if w == nil {
		return notFound(id)
	}
	if w.state != store.WorkflowRunning {
		return nil
	}
	w.cancelled = true
	l := queueLock{s: s}
	for _, t := range w.tasks {
		switch t.state {
		case store.TaskWaiting:
			w.setState(t, store.TaskCancelled)
			t.job = nil
		case store.TaskEnqueued:
			// A job that is gone has had its end noted in the inbox.
			if q := l.get(t.queue, false); q != nil {
				if j := q.jobs[t.jobID]; j != nil {
					q.cancel(j, now, nowMs)
				}
			}
		}
	}
	l.release()
	s.applyInbox()
	s.checkEnd(w, now)
	return nil
}

// RetryWorkflow requeues, as Requeue does, the jobs in garbage of the
// workflow's failed and cancelled tasks, and returns how many; the
// workflow re-opens and the tasks skipped because of them wait again. A
// workflow that CancelWorkflow cancelled gives ErrWorkflowEnded.
func (s *Store) RetryWorkflow(ctx context.Context, id string) (int, error) {
	if err := store.ValidateWorkflowID(id); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now, _ := s.now()
	s.wf.mu.Lock()
	defer s.wf.mu.Unlock()
	s.applyInbox()
	w := s.getWorkflow(id, now)
	if w == nil {
		return 0, notFound(id)
	}
	if w.cancelled {
		return 0, store.WorkflowCancelledError(id)
	}
	n := 0
	l := queueLock{s: s}
	for _, t := range w.tasks {
		if !t.released || t.state != store.TaskFailed && t.state != store.TaskCancelled {
			continue
		}
		if q := l.get(t.queue, false); q != nil {
			if j := q.jobs[t.jobID]; j != nil && j.rec.State == store.StateGarbage {
				q.requeue(j, now)
				n++
			}
		}
	}
	l.release()
	s.applyInbox()
	return n, nil
}

// MaintainWorkflows finishes nothing left half done (the store applies
// every end before the call that caused it returns) and removes at most
// batch workflows past their retention (zero means
// store.DefaultMaintainBatch). It returns zero when more are due, else the
// time until the next one is, at most five seconds.
func (s *Store) MaintainWorkflows(ctx context.Context, batch int) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := store.ValidateWorkflowBatch(batch); err != nil {
		return 0, err
	}
	if batch == 0 {
		batch = store.DefaultMaintainBatch
	}
	now, _ := s.now()
	s.wf.mu.Lock()
	defer s.wf.mu.Unlock()
	s.applyInbox()
	for range batch {
		if e := s.nextExpiry(); e == nil || e.at.After(now) {
			break
		}
		e := heap.Pop(&s.wf.ended).(expiry)
		delete(s.wf.byID, e.id)
	}
	e := s.nextExpiry()
	if e == nil {
		return wfMaintainMax, nil
	}
	return min(max(e.at.Sub(now), 0), wfMaintainMax), nil
}

// expiry is when an ended workflow's retention runs out.
type expiry struct {
	at time.Time
	id string
}

// expiryHeap orders expiries, earliest first. An entry is stale when its
// workflow is gone, running again, or ended again later.
type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// nextExpiry drops stale entries from the front of the expiry heap and
// returns the earliest live one, or nil. s.wf.mu must be held.
func (s *Store) nextExpiry() *expiry {
	h := &s.wf.ended
	for h.Len() > 0 {
		e := (*h)[0]
		w := s.wf.byID[e.id]
		if w != nil && w.state != store.WorkflowRunning && w.endedAt.Add(w.retention).Equal(e.at) {
			return &e
		}
		heap.Pop(h)
	}
	return nil
}

// lockedWorkflow returns workflow id with the workflows' lock held, for a
// read; the caller calls unlock when done. It fails with the error of
// store.ValidateWorkflowID, ctx's error or ErrWorkflowNotFound, holding
// nothing.
func (s *Store) lockedWorkflow(ctx context.Context, id string) (w *workflow, unlock func(), err error) {
	if err := store.ValidateWorkflowID(id); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	now, _ := s.now()
	s.wf.mu.Lock()
	if w = s.getWorkflow(id, now); w == nil {
		s.wf.mu.Unlock()
		return nil, nil, notFound(id)
	}
	return w, s.wf.mu.Unlock, nil
}
