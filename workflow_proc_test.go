package hopper_test

// Workflows on Redis while worker processes die: the workers are this test
// binary re-executed (workflow_proc_helpers_test.go), SIGKILLed one at a
// time every ~2 s, each running a scheduler of its own.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// wfPlan is one workflow of the kill test as the test designed it: the
// state each task must end in (the tasks a task adds at run time
// included), and the workflow's.
type wfPlan struct {
	id, shape string
	want      hopper.WorkflowState
	tasks     map[string]hopper.TaskState
}

var wfQueues = []string{"wfq0", "wfq1", "wfq2", "wfq3"}

// buildKillWorkflow returns workflow i of the kill test and its plan. Each
// has a fan-out of 100 tasks and a fan-in of them; the shapes are:
//
//	fan:   root -> f000..f099 -> join -> tail
//	chain: c0 -> c1 -> c2 -> f000..f099 -> join -> c3 -> c4
//	fail:  root -> f000..f099 (f042 fails) -> join -> tail, root -> side,
//	       report on join's completion (AnyOutcome): f042 failed, join
//	       and tail skipped, report runs; the workflow fails
//	allow: root -> f000..f099 (f007 fails, AllowFailure) -> join -> tail:
//	       the workflow succeeds
//	dyn:   root -> spawn -> join -> tail, spawn adding d000..d099 at run
//	       time after itself and before join
func buildKillWorkflow(i int) (*hopper.Workflow, *wfPlan) {
	shapes := []string{"fan", "chain", "fail", "allow", "dyn"}
	shape := shapes[i%len(shapes)]
	p := &wfPlan{id: fmt.Sprintf("wf%02d-%s", i, shape), shape: shape, want: hopper.WorkflowSucceeded, tasks: map[string]hopper.TaskState{}}
	w := hopper.NewWorkflow("kill test "+shape, &hopper.WorkflowOpts{ID: p.id})
	n := 0
	add := func(name string, args WfStep) *hopper.Task {
		n++
		p.tasks[name] = hopper.TaskSucceeded
		return hopper.AddTask(w, name, args, wfTaskOpts(wfQueues[(i+n)%len(wfQueues)]))
	}
	fanOut := func(failing int, allow bool) []*hopper.Task {
		fs := make([]*hopper.Task, 100)
		for k := range fs {
			fs[k] = add(fmt.Sprintf("f%03d", k), WfStep{Fail: k == failing})
			if k == failing {
				p.tasks[fs[k].Name()] = hopper.TaskFailed
				if allow {
					fs[k].AllowFailure()
				}
			}
		}
		return fs
	}
	switch shape {
	case "fan":
		root := add("root", WfStep{})
		fs := fanOut(-1, false)
		for _, f := range fs {
			f.After(root)
		}
		join := add("join", WfStep{}).After(fs...)
		add("tail", WfStep{}).After(join)
	case "chain":
		c := []*hopper.Task{add("c0", WfStep{}), add("c1", WfStep{}), add("c2", WfStep{})}
		w.Chain(c...)
		fs := fanOut(-1, false)
		for _, f := range fs {
			f.After(c[2])
		}
		join := add("join", WfStep{})
		w.OnSuccess(join, fs...)
		w.Chain(join, add("c3", WfStep{}), add("c4", WfStep{}))
	case "fail":
		root := add("root", WfStep{})
		fs := fanOut(42, false)
		for _, f := range fs {
			f.After(root)
		}
		join := add("join", WfStep{}).After(fs...)
		add("tail", WfStep{}).After(join)
		add("side", WfStep{}).After(root)
		w.OnComplete(add("report", WfStep{}), join)
		p.tasks["join"], p.tasks["tail"] = hopper.TaskSkipped, hopper.TaskSkipped
		p.want = hopper.WorkflowFailed
	case "allow":
		root := add("root", WfStep{})
		fs := fanOut(7, true)
		for _, f := range fs {
			f.After(root)
		}
		join := add("join", WfStep{}).After(fs...)
		add("tail", WfStep{}).After(join)
	case "dyn":
		root := add("root", WfStep{})
		spawn := add("spawn", WfStep{Spawn: 100, Before: "join", Queues: wfQueues}).After(root)
		join := add("join", WfStep{}).After(spawn)
		add("tail", WfStep{}).After(join)
		for k := range 100 {
			p.tasks[spawnedName(k)] = hopper.TaskSucceeded
		}
	}
	return w, p
}

// TestProcWorkflowsSurviveKilledWorkers runs 50 workflows of mixed shapes
// (buildKillWorkflow: each with a fan-out of 100 and a fan-in; chains; a
// permanent failure that fails its workflow and skips its dependents; one
// allowed to fail; a fan-out added at run time) on 4 queues, while 3
// worker processes of 8 slots, each with its own scheduler, are SIGKILLed
// one at a time every ~2 s and replaced. Then:
//
//   - every workflow has ended, in the state its tasks' ends imply, which
//     is the state designed; every task ended as designed, its job in done
//     (succeeded) or garbage (failed), or never enqueued (skipped);
//   - no task started, by a ledger of start times the handlers took from
//     Redis TIME, before every dependency ended: for a dependency that ran,
//     the ack (or death) time of its job (FinishedAt, from Redis TIME in
//     the same step); for one that was skipped, the end of the dependency
//     that skipped it;
//   - skipped tasks never started; every task that succeeded ran, and its
//     last attempt returned nil;
//   - a workflow's end is no earlier than its tasks' ends.
//
// Starts beyond the first are counted and logged, by whether the process
// of the attempt before was killed.
func TestProcWorkflowsSurviveKilledWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("kills worker processes for half a minute; not in -short mode")
	}
	p := newProcSetup(t, redistest.Private())
	rdb, prefix, st := p.rdb, p.prefix, p.store
	ctx := t.Context()
	ins := hopper.NewInspector(st)
	// Half the tasks work up to 400 ms: the workflows run for about half
	// a minute, long enough for a dozen kills.
	spec := childSpec{Role: roleWorkflow, Queue: strings.Join(wfQueues, ","), Concurrency: 8, Work: 400 * time.Millisecond}
	began := time.Now()
	workers := p.start(3, spec)

	const nWorkflows = 50
	plans := map[string]*wfPlan{}
	client := hopper.NewClient(st, nil)
	for i := range nWorkflows {
		w, plan := buildKillWorkflow(i)
		info, err := hopper.EnqueueWorkflow(ctx, client, w)
		if err != nil {
			t.Fatal(err)
		}
		if info.Duplicate || info.ID != plan.id {
			t.Fatalf("EnqueueWorkflow: %+v, want a new workflow %s", info, plan.id)
		}
		plans[plan.id] = plan
	}

	allEnded := func() bool {
		page, err := ins.ListWorkflows(ctx, hopper.ListWorkflowsOpts{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		ended := page.Counts[hopper.WorkflowSucceeded] + page.Counts[hopper.WorkflowFailed] + page.Counts[hopper.WorkflowCancelled]
		return page.Counts[hopper.WorkflowRunning] == 0 && ended == nWorkflows
	}
	// Kill a worker every 1.5 to 2.5 s, for as long as workflows run (at
	// most killFor), starting another in its place at once.
	killFor, overall := 60*time.Second, 90*time.Second
	if testutil.Race {
		overall = 150 * time.Second
	}
	killed := map[int]time.Time{} // pid -> when
	killUntil := began.Add(killFor)
	var orphans orphanCount
	for !allEnded() && time.Now().Before(killUntil) {
		next := time.Now().Add(1500*time.Millisecond + rand.N(time.Second))
		if testutil.Poll(time.Until(next), allEnded) {
			break
		}
		orphans.sample(t, rdb, prefix)
		k := rand.N(len(workers))
		victim := workers[k]
		victim.Kill()
		killed[victim.PID()] = time.Now()
		orphans.killed(t, rdb)
		workers[k] = p.Start("", roleWorkflow, p.spec(spec))
	}
	orphans.sample(t, rdb, prefix)
	killing := time.Since(began)
	if !testutil.Poll(time.Until(began.Add(overall)), allEnded) {
		diagnoseRunning(t, ins, plans)
		t.Fatalf("workflows still running %v after they were enqueued (killing stopped after %v)", overall, killing)
	}
	finished := time.Since(began)
	if len(killed) == 0 {
		t.Errorf("the workflows ended %v after the start, before any worker was killed: the test proved nothing", finished)
	}
	// The workers have nothing left to run; stop them so the ledger is
	// final.
	p.Stop()
	if t.Failed() {
		t.FailNow()
	}

	ledger := ledgerOf(t, p.Events())
	recs, jobs := readKillWorkflows(t, ins, plans)
	var errs errCap
	defer errs.report(t)
	var stats killStats
	for _, id := range slices.Sorted(maps.Keys(plans)) {
		checkKillWorkflow(t, &errs, &stats, recs[id], plans[id], jobs, ledger, killed)
	}
	for job := range ledger {
		if _, ok := jobs[job]; !ok {
			errs.errorf(t, "the ledger holds job %s, not a task of any workflow", job)
		}
	}
	t.Logf("%d workflows, %d tasks, on %d queues; %d worker processes SIGKILLed over %v; all workflows ended %v after the start",
		nWorkflows, stats.tasks, len(wfQueues), len(killed), killing.Round(time.Millisecond), finished.Round(time.Millisecond))
	t.Logf("task starts: %d in all, %d beyond one per task that ran (%d tasks started more than once): "+
		"%d after an attempt killed in its handler, %d after an attempt whose handler returned but whose process was killed before the ack, "+
		"%d after an attempt whose process was not killed; %d attempts claimed whose handler never wrote its start (its process died first)",
		stats.starts, stats.extra, stats.multi, stats.killedMid, stats.killedAfter, stats.notKilled, stats.gaps)
	t.Logf("workflows by state: %v; tasks by state: %v; the closest a start came to a dependency's end: %v after it (ends in whole ms)",
		stats.wfStates, stats.taskStates, stats.minGap)
	t.Logf("task ends a killed process left for the sweepers to deliver, seen in the queues' delivery sets shortly after the kills: %d", orphans.n)
}

// orphanCount estimates how many task ends killed processes left
// undelivered: the records (redisstore's {<prefix>:<queue>}:wq sets, an
// internal layout, so this is only logged) due for a sweeper no later than
// 5 s (the delivery lease) after a kill, and later than 5 s after the one
// before, counted before the next kill, when no sweeper may have taken
// them yet. A live process delivers its records within milliseconds.
type orphanCount struct {
	n            int64
	prev, lastMs int64 // the Redis time of the last two kills, ms
}

// killed notes the Redis time of a kill.
func (o *orphanCount) killed(t *testing.T, rdb *redis.Client) {
	now, err := rdb.Time(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	o.prev, o.lastMs = o.lastMs, now.UnixMilli()
}

// sample counts the records of the last kill.
func (o *orphanCount) sample(t *testing.T, rdb *redis.Client, prefix string) {
	if o.lastMs == 0 {
		return
	}
	lo, hi := fmt.Sprint("(", o.prev+5000), fmt.Sprint(o.lastMs+5000)
	if o.prev == 0 {
		lo = "-inf"
	}
	for _, q := range wfQueues {
		n, err := rdb.ZCount(t.Context(), "{"+prefix+":"+q+"}:wq", lo, hi).Result()
		if err != nil {
			t.Fatal(err)
		}
		o.n += n
	}
	o.prev = o.lastMs // counted: the next sample starts after it
}

// errCap reports the first errors of a check and counts the others.
type errCap struct{ n int }

const errCapMax = 40

func (e *errCap) errorf(t *testing.T, format string, args ...any) {
	t.Helper()
	e.n++
	if e.n <= errCapMax {
		t.Errorf(format, args...)
	}
}

func (e *errCap) report(t *testing.T) {
	if e.n > errCapMax {
		t.Errorf("... and %d errors more", e.n-errCapMax)
	}
}

// killStats counts what the ledger shows.
type killStats struct {
	tasks, starts, extra, multi             int
	killedMid, killedAfter, notKilled, gaps int
	minGap                                  time.Duration // the least start time minus a dependency's end
	gapSeen                                 bool
	wfStates                                map[hopper.WorkflowState]int
	taskStates                              map[hopper.TaskState]int
}

// taskLedger is what the ledger holds for one task's job, by attempt: the
// marks its handlers reported (Ev the mark, StoreAt the server's time).
type taskLedger struct {
	starts map[int][]proctest.Event // attempt -> its start marks (one, unless a claim was repeated)
	ends   map[int]proctest.Event   // attempt -> its end or fail mark
}

// ledgerOf sorts the marks the handlers reported by job ID.
func ledgerOf(t *testing.T, evs []proctest.Event) map[string]*taskLedger {
	t.Helper()
	out := map[string]*taskLedger{}
	for _, e := range evs {
		if e.Ev == proctest.EvReady || e.Ev == proctest.EvError { // an error failed the test already
			continue
		}
		tl := out[e.Job]
		if tl == nil {
			tl = &taskLedger{starts: map[int][]proctest.Event{}, ends: map[int]proctest.Event{}}
			out[e.Job] = tl
		}
		switch e.Ev {
		case markStart:
			tl.starts[e.Attempt] = append(tl.starts[e.Attempt], e)
		case markEnd, markFail:
			if prev, ok := tl.ends[e.Attempt]; ok {
				t.Errorf("job %s attempt %d ended twice in the ledger: %+v and %+v", e.Job, e.Attempt, prev, e)
			}
			tl.ends[e.Attempt] = e
		default:
			t.Fatalf("ledger entry %+v: unknown mark", e)
		}
	}
	return out
}

// readKillWorkflows reads every planned workflow with its tasks, and the job
// of every task (nil for a job the queue does not hold), by job ID.
func readKillWorkflows(t *testing.T, ins *hopper.Inspector, plans map[string]*wfPlan) (map[string]*hopper.WorkflowRecord, map[string]*hopper.JobRecord) {
	t.Helper()
	recs := map[string]*hopper.WorkflowRecord{}
	type ref struct{ queue, id string }
	var refs []ref
	for id := range plans {
		rec, err := ins.GetWorkflow(t.Context(), id)
		if err != nil {
			t.Fatalf("Workflow(%s): %v", id, err)
		}
		recs[id] = rec
		for _, tr := range rec.Tasks {
			refs = append(refs, ref{tr.Queue, tr.JobID})
		}
	}
	jobs := make(map[string]*hopper.JobRecord, len(refs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	todo := make(chan ref)
	for range 8 {
		wg.Go(func() {
			for r := range todo {
				rec, err := ins.GetJob(t.Context(), r.queue, r.id)
				if errors.Is(err, hopper.ErrJobNotFound) {
					rec, err = nil, nil
				}
				if err != nil {
					t.Errorf("GetJob(%s, %s): %v", r.queue, r.id, err)
					continue
				}
				mu.Lock()
				jobs[r.id] = rec
				mu.Unlock()
			}
		})
	}
	for _, r := range refs {
		todo <- r
	}
	close(todo)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return recs, jobs
}

// failedOrSkipped reports whether a task ended without succeeding.
func failedOrSkipped(s hopper.TaskState) bool {
	return s == hopper.TaskFailed || s == hopper.TaskSkipped || s == hopper.TaskCancelled
}

// checkKillWorkflow checks one workflow of the kill test against its plan,
// its tasks' jobs and the ledger (see TestProcWorkflowsSurviveKilledWorkers).
func checkKillWorkflow(t *testing.T, errs *errCap, stats *killStats, rec *hopper.WorkflowRecord, plan *wfPlan,
	jobs map[string]*hopper.JobRecord, ledger map[string]*taskLedger, killed map[int]time.Time) {
	t.Helper()
	wf := rec.ID
	if stats.wfStates == nil {
		stats.wfStates, stats.taskStates = map[hopper.WorkflowState]int{}, map[hopper.TaskState]int{}
	}
	stats.wfStates[rec.State]++
	byName := make(map[string]*store.TaskRecord, len(rec.Tasks))
	for i := range rec.Tasks {
		tr := &rec.Tasks[i]
		if byName[tr.Name] != nil {
			errs.errorf(t, "workflow %s holds task %s twice", wf, tr.Name)
		}
		byName[tr.Name] = tr
	}
	if got, want := slices.Sorted(maps.Keys(byName)), slices.Sorted(maps.Keys(plan.tasks)); !slices.Equal(got, want) {
		errs.errorf(t, "workflow %s has tasks %v, want %v", wf, got, want)
	}
	stats.tasks += len(rec.Tasks)

	// end returns when task name ended: its job's end (ack or death, the
	// store's clock in ms, rounded down) for a task that ran, else the
	// earliest end of a dependency that skipped it.
	ends := map[string]time.Time{}
	var end func(name string) (time.Time, bool)
	end = func(name string) (time.Time, bool) {
		if at, ok := ends[name]; ok {
			return at, !at.IsZero()
		}
		ends[name] = time.Time{} // no cycles, but never loop
		tr := byName[name]
		if tr == nil {
			return time.Time{}, false
		}
		var at time.Time
		switch tr.State {
		case hopper.TaskSucceeded, hopper.TaskFailed, hopper.TaskCancelled:
			if j := jobs[tr.JobID]; j != nil {
				at = j.FinishedAt
			}
		case hopper.TaskSkipped:
			for _, d := range tr.Deps {
				dr := byName[d]
				if dr == nil || !failedOrSkipped(dr.State) || dr.AllowFailure || tr.AnyOutcome {
					continue
				}
				if de, ok := end(d); ok && (at.IsZero() || de.Before(at)) {
					at = de
				}
			}
		}
		ends[name] = at
		return at, !at.IsZero()
	}

	implied := hopper.WorkflowSucceeded
	var lastEnd time.Time
	for _, tr := range rec.Tasks {
		stats.taskStates[tr.State]++
		what := fmt.Sprintf("workflow %s task %s (job %s)", wf, tr.Name, tr.JobID)
		if !tr.State.Ended() {
			errs.errorf(t, "%s is %s after its workflow ended as %s", what, tr.State, rec.State)
			continue
		}
		if want := plan.tasks[tr.Name]; tr.State != want {
			errs.errorf(t, "%s ended %s, want %s", what, tr.State, want)
		}
		if (tr.State == hopper.TaskFailed && !tr.AllowFailure) || tr.State == hopper.TaskSkipped || tr.State == hopper.TaskCancelled {
			implied = hopper.WorkflowFailed
		}
		// The table of store.Workflows: skipped exactly when a dependency
		// ended unsatisfied.
		var unsat []string
		for _, d := range tr.Deps {
			dr := byName[d]
			switch {
			case dr == nil:
				errs.errorf(t, "%s depends on %s, which the workflow does not hold", what, d)
			case !dr.State.Ended():
				errs.errorf(t, "%s ended %s while its dependency %s is %s", what, tr.State, d, dr.State)
			case failedOrSkipped(dr.State) && !dr.AllowFailure && !tr.AnyOutcome:
				unsat = append(unsat, d+" "+string(dr.State))
			}
		}
		if (len(unsat) > 0) != (tr.State == hopper.TaskSkipped) {
			errs.errorf(t, "%s ended %s; its unsatisfied dependencies: %v", what, tr.State, unsat)
		}
		if tr.Name == "join" && plan.shape == "dyn" && len(tr.Deps) != 101 {
			errs.errorf(t, "%s has %d dependencies, want spawn and the 100 tasks it added", what, len(tr.Deps))
		}

		j := jobs[tr.JobID]
		tl := ledger[tr.JobID]
		switch tr.State {
		case hopper.TaskSkipped:
			if j != nil {
				errs.errorf(t, "%s was skipped but its job is in its queue, %s after %d attempts", what, j.State, j.Attempt)
			}
			if tl != nil {
				errs.errorf(t, "%s was skipped but started: %+v", what, tl.starts)
			}
			continue
		case hopper.TaskSucceeded, hopper.TaskFailed:
			want := hopper.StateDone
			if tr.State == hopper.TaskFailed {
				want = hopper.StateGarbage
			}
			if j == nil || j.State != want || j.FinishedAt.IsZero() {
				errs.errorf(t, "%s %s, but its job is %+v, want it in %s", what, tr.State, j, want)
				continue
			}
		}
		if j.FinishedAt.After(lastEnd) {
			lastEnd = j.FinishedAt
		}
		if tl == nil {
			errs.errorf(t, "%s %s but never started", what, tr.State)
			continue
		}
		// The last attempt started and returned as its state says.
		last := j.Attempt
		wantMark := map[hopper.TaskState]string{hopper.TaskSucceeded: markEnd, hopper.TaskFailed: markFail}[tr.State]
		if len(tl.starts[last]) == 0 {
			errs.errorf(t, "%s %s after attempt %d, which the ledger never saw start (starts %v)", what, tr.State, last, slices.Sorted(maps.Keys(tl.starts)))
		} else if e, ok := tl.ends[last]; !ok || e.Ev != wantMark {
			errs.errorf(t, "%s %s after attempt %d, whose handler ended %+v", what, tr.State, last, e)
		} else if e.StoreAt.Truncate(time.Millisecond).After(j.FinishedAt) {
			errs.errorf(t, "%s: its last attempt's handler returned at %s, after its job's end %s", what, fmtT(e.StoreAt), fmtT(j.FinishedAt))
		}
		// No task started before every dependency had ended.
		for a, ss := range tl.starts {
			if a > last {
				errs.errorf(t, "%s: attempt %d started, after the job's last attempt %d", what, a, last)
			}
			if len(ss) > 1 {
				errs.errorf(t, "%s: attempt %d started %d times: %+v", what, a, len(ss), ss)
			}
			for _, s := range ss {
				for _, d := range tr.Deps {
					de, ok := end(d)
					if !ok {
						errs.errorf(t, "%s: no end time for its dependency %s (%s)", what, d, byName[d].State)
						continue
					}
					if gap := s.StoreAt.Sub(de); !stats.gapSeen || gap < stats.minGap {
						stats.minGap, stats.gapSeen = gap, true
					}
					if s.StoreAt.Before(de) {
						errs.errorf(t, "%s: attempt %d started at %s in pid %d, before its dependency %s ended (%s) at %s",
							what, a, fmtT(s.StoreAt), s.PID, d, byName[d].State, fmtT(de))
					}
				}
			}
		}
		// Starts beyond the first, by what happened to the attempt before.
		attempts := slices.Sorted(maps.Keys(tl.starts))
		for _, ss := range tl.starts {
			stats.starts += len(ss)
		}
		if n := len(attempts); n > 1 {
			stats.multi++
			stats.extra += n - 1
		}
		for _, a := range attempts[:len(attempts)-1] {
			s := tl.starts[a][0]
			_, ended := tl.ends[a]
			switch _, dead := killed[s.PID]; {
			case !dead:
				stats.notKilled++
			case ended:
				stats.killedAfter++
			default:
				stats.killedMid++
			}
		}
		for a := 1; a <= last; a++ {
			if len(tl.starts[a]) == 0 {
				stats.gaps++
			}
		}
	}
	if rec.State != implied || rec.State != plan.want {
		errs.errorf(t, "workflow %s (%s) ended %s; its tasks' ends imply %s; designed to end %s; task counts %v",
			wf, plan.shape, rec.State, implied, plan.want, rec.Counts)
	}
	if rec.EndedAt.IsZero() || rec.EndedAt.Before(lastEnd) {
		errs.errorf(t, "workflow %s ended at %s, before its last task's job ended at %s", wf, fmtT(rec.EndedAt), fmtT(lastEnd))
	}
}

func fmtT(at time.Time) string { return at.Format("15:04:05.000000") }

// diagnoseRunning reports the workflows still running and, for each, the
// tasks not ended with their jobs' states: a workflow whose unended tasks'
// jobs have all ended was left running.
func diagnoseRunning(t *testing.T, ins *hopper.Inspector, plans map[string]*wfPlan) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	for _, id := range slices.Sorted(maps.Keys(plans)) {
		rec, err := ins.GetWorkflow(ctx, id)
		if err != nil {
			t.Errorf("Workflow(%s): %v", id, err)
			continue
		}
		if rec.State != hopper.WorkflowRunning {
			continue
		}
		var open []string
		jobsEnded := true
		for _, tr := range rec.Tasks {
			if tr.State.Ended() {
				continue
			}
			js := "no job"
			j, err := ins.GetJob(ctx, tr.Queue, tr.JobID)
			switch {
			case err == nil:
				js = fmt.Sprintf("job %s attempt %d", j.State, j.Attempt)
				if j.State != hopper.StateDone && j.State != hopper.StateGarbage {
					jobsEnded = false
				}
			case errors.Is(err, hopper.ErrJobNotFound):
				if tr.State == hopper.TaskEnqueued {
					js = "job gone"
				} else {
					jobsEnded = false // waiting, as it should be while deps run
				}
			default:
				js = err.Error()
			}
			open = append(open, fmt.Sprintf("%s %s (%s)", tr.Name, tr.State, js))
		}
		slices.SortFunc(open, cmp.Compare)
		if len(open) > 12 {
			open = append(open[:12], fmt.Sprintf("... %d more", len(open)-12))
		}
		t.Errorf("workflow %s still running (every job of its unended tasks ended: %v), counts %v: %s",
			id, jobsEnded, rec.Counts, strings.Join(open, "; "))
	}
}
