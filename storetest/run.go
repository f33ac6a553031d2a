package storetest

import (
	"testing"

	"github.com/hopperq/hopper/store"
)

// Run checks the Store that newStore returns against the store package's
// contract, one subtest per behaviour, in two groups:
//
//   - "Engine/...": what hopper's Client, Worker and Scheduler rely on,
//     observed through store.Store alone. It runs for every store.
//   - "Admin/...": inspection and operator actions, and the parts of the
//     lifecycle only store.Admin can show (error history, results, counts,
//     queue settings, cancellation). It runs when the store implements
//     store.Admin, and is reported as skipped otherwise.
//
// Optional groups follow, each run when the store implements its
// interface and reported as skipped otherwise: "Events"
// (store.EventReader), "WatchJob" (store.JobWaiter), "Workflows"
// (store.Workflows), "StoredSchedules" (store.ScheduleStore),
// "WorkerControl" (store.WorkerControl), "ScheduleRuns" (store.ScheduleRuns),
// "GroupLimits" (store.Groups), "Durations" (store.Durations),
// "KindIndex" (store.Searcher with store.Admin) and "KindIndexWorkflows"
// (those with store.Workflows).
//
// Run asks newStore for one store first, to decide whether the store
// implements store.Admin and the optional interfaces. After that, newStore
// is called once per subtest, from that subtest's goroutine, and must
// return a store with no jobs in it (or at least none in the queues the
// subtest uses: queue names are random). It may call t.Fatal and register t.Cleanup to release the
// store. Subtests run in parallel within a group of cases; Run returns when
// all of them have finished.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	probe := newStore(t)
	if probe == nil {
		t.Fatal("newStore returned a nil Store")
	}
	_, hasAdmin := store.As[store.Admin](probe)
	_, hasEvents := store.As[store.EventReader](probe)
	_, hasWatch := store.As[store.JobWaiter](probe)
	_, hasWorkflows := store.As[store.Workflows](probe)
	_, hasWatchWorkflow := store.As[store.WorkflowWaiter](probe)
	_, hasGroups := store.As[store.Groups](probe)
	_, hasStored := store.As[store.ScheduleStore](probe)
	_, hasControl := store.As[store.WorkerControl](probe)
	_, hasRuns := store.As[store.ScheduleRuns](probe)
	_, hasDurations := store.As[store.Durations](probe)
	_, hasSearcher := store.As[store.Searcher](probe)
	t.Run("Engine", func(t *testing.T) {
		for _, g := range engineGroups() {
			t.Run(g.name, func(t *testing.T) {
				for _, c := range g.cases {
					c.run(t, func(t *testing.T, fn engineFunc) {
						fn(t, freshStore(t, newStore))
					})
				}
			})
		}
	})
	t.Run("Admin", func(t *testing.T) {
		if !hasAdmin {
			t.Skipf("the store (%T) does not implement store.Admin: only the Engine group applies", probe)
		}
		for _, g := range adminGroups() {
			t.Run(g.name, func(t *testing.T) {
				for _, c := range g.cases {
					c.run(t, func(t *testing.T, fn adminFunc) {
						s := freshStore(t, newStore)
						a, ok := store.As[store.Admin](s)
						if !ok {
							t.Fatalf("newStore returned a %T, which does not implement store.Admin, after a %T that does", s, probe)
						}
						fn(t, s, a)
					})
				}
			})
		}
	})
	// The optional groups: a case that also needs store.Admin gets it, or
	// nil when the store has none (and skips).
	adminOf := func(s store.Store) store.Admin { a, _ := store.As[store.Admin](s); return a }
	wrongStore := func(t *testing.T, s store.Store, iface string) {
		t.Fatalf("newStore returned a %T, which does not implement %s, after a %T that does", s, iface, probe)
	}
	runOptional(t, "Events", hasEvents, probe, eventsCases(), func(t *testing.T, fn eventsFunc) {
		s := freshStore(t, newStore)
		r, ok := store.As[store.EventReader](s)
		if !ok {
			wrongStore(t, s, "store.EventReader")
		}
		fn(t, s, r, adminOf(s))
	})
	runOptional(t, "WatchJob", hasWatch, probe, watchCases(), func(t *testing.T, fn watchFunc) {
		s := freshStore(t, newStore)
		w, ok := store.As[store.JobWaiter](s)
		if !ok {
			wrongStore(t, s, "store.JobWaiter")
		}
		fn(t, s, w, adminOf(s))
	})
	runOptional(t, "Workflows", hasWorkflows, probe, workflowCases(), func(t *testing.T, fn workflowFunc) {
		s := freshStore(t, newStore)
		w, ok := store.As[store.Workflows](s)
		if !ok {
			wrongStore(t, s, "store.Workflows")
		}
		fn(t, s, w, adminOf(s))
	})
	runOptional(t, "WatchWorkflow", hasWorkflows && hasWatchWorkflow, probe, watchWorkflowCases(), func(t *testing.T, fn watchWorkflowFunc) {
		s := freshStore(t, newStore)
		w, ok1 := store.As[store.Workflows](s)
		ww, ok2 := store.As[store.WorkflowWaiter](s)
		if !ok1 || !ok2 {
			wrongStore(t, s, "store.Workflows and store.WorkflowWaiter")
		}
		fn(t, s, w, ww)
	})
	runOptional(t, "StoredSchedules", hasStored, probe, storedCases(), func(t *testing.T, fn storedFunc) {
		s := freshStore(t, newStore)
		ss, ok := store.As[store.ScheduleStore](s)
		if !ok {
			wrongStore(t, s, "store.ScheduleStore")
		}
		fn(t, s, ss)
	})
	runOptional(t, "WorkerControl", hasControl, probe, workerControlCases(), func(t *testing.T, fn controlFunc) {
		s := freshStore(t, newStore)
		c, ok := store.As[store.WorkerControl](s)
		if !ok {
			wrongStore(t, s, "store.WorkerControl")
		}
		fn(t, s, c)
	})
	runOptional(t, "ScheduleRuns", hasRuns, probe, scheduleRunsCases(), func(t *testing.T, fn runsFunc) {
		s := freshStore(t, newStore)
		sr, ok := store.As[store.ScheduleRuns](s)
		if !ok {
			wrongStore(t, s, "store.ScheduleRuns")
		}
		fn(t, s, sr)
	})
	runOptional(t, "GroupLimits", hasGroups, probe, groupLimitCases(), func(t *testing.T, fn groupLimitFunc) {
		s := freshStore(t, newStore)
		g, ok := store.As[store.Groups](s)
		if !ok {
			wrongStore(t, s, "store.Groups")
		}
		a := adminOf(s)
		if a == nil {
			t.Skipf("the store (%T) implements store.Groups without store.Admin", s)
		}
		fn(t, s, g, a)
	})
	runOptional(t, "Durations", hasDurations, probe, durationsCases(), func(t *testing.T, fn durationsFunc) {
		s := freshStore(t, newStore)
		ds, ok := store.As[store.Durations](s)
		if !ok {
			wrongStore(t, s, "store.Durations")
		}
		fn(t, s, ds)
	})
	// searcherAdmin returns s as a store.Searcher and its store.Admin, for
	// the kind index's groups.
	searcherAdmin := func(t *testing.T, s store.Store) (store.Searcher, store.Admin) {
		se, ok := store.As[store.Searcher](s)
		if !ok {
			wrongStore(t, s, "store.Searcher")
		}
		a := adminOf(s)
		if a == nil {
			t.Skipf("the store (%T) implements store.Searcher without store.Admin", s)
		}
		return se, a
	}
	runOptional(t, "KindIndex", hasSearcher && hasAdmin, probe, kindIndexCases(), func(t *testing.T, fn kindIndexFunc) {
		s := freshStore(t, newStore)
		se, a := searcherAdmin(t, s)
		fn(t, s, se, a)
	})
	runOptional(t, "KindIndexWorkflows", hasSearcher && hasAdmin && hasWorkflows, probe, kindIndexWorkflowCases(), func(t *testing.T, fn kindIndexWorkflowFunc) {
		s := freshStore(t, newStore)
		se, a := searcherAdmin(t, s)
		w, ok := store.As[store.Workflows](s)
		if !ok {
			wrongStore(t, s, "store.Workflows")
		}
		fn(t, s, se, w, a)
	})
}

// runOptional runs the cases of the group of an optional interface, or
// skips it when the store (probe) does not implement it; call runs one
// case on a fresh store.
func runOptional[F any](t *testing.T, name string, has bool, probe store.Store, cases []testCase[F], call func(t *testing.T, fn F)) {
	t.Run(name, func(t *testing.T) {
		if !has {
			t.Skipf("the store (%T) does not implement the optional interface of the %s group", probe, name)
		}
		for _, c := range cases {
			c.run(t, call)
		}
	})
}

// engineFunc is an Engine case: it sees the store only as a store.Store.
type engineFunc = func(t *testing.T, s store.Store)

// adminFunc is an Admin case: it drives jobs through s and observes or
// acts on them through a, the same store as a store.Admin.
type adminFunc = func(t *testing.T, s store.Store, a store.Admin)

// testCase is one behaviour (fn), or a named set of behaviours (sub).
type testCase[F any] struct {
	name string
	fn   F
	sub  []testCase[F]
}

type (
	engineCase = testCase[engineFunc]
	adminCase  = testCase[adminFunc]
)

// group is one area of the contract: Enqueue, Claim, Finish, ...
type group[F any] struct {
	name  string
	cases []testCase[F]
}

// run runs c as a parallel subtest of t, calling call with its function,
// or its sub cases under one parallel subtest named c.name.
func (c testCase[F]) run(t *testing.T, call func(t *testing.T, fn F)) {
	t.Run(c.name, func(t *testing.T) {
		t.Parallel()
		if len(c.sub) > 0 {
			for _, sc := range c.sub {
				sc.run(t, call)
			}
			return
		}
		call(t, c.fn)
	})
}

// freshStore calls newStore for one subtest.
func freshStore(t *testing.T, newStore func(t *testing.T) store.Store) store.Store {
	t.Helper()
	s := newStore(t)
	if s == nil {
		t.Fatal("newStore returned a nil Store")
	}
	return s
}

// engineGroups lists the groups of the Engine part, in the order they run.
func engineGroups() []group[engineFunc] {
	return []group[engineFunc]{
		{"Enqueue", enqueueCases()},
		{"Unique", uniqueCases()},
		{"Periodic", periodicCases()},
		{"Claim", claimCases()},
		{"Finish", finishCases()},
		{"Extend", extendCases()},
		{"Maintain", maintainCases()},
		{"Wait", waitCases()},
		{"Queues", queuesCases()},
		{"Workers", workerCases()},
		{"Schedules", scheduleCases()},
		{"Concurrency", concurrencyCases()},
	}
}

// adminGroups lists the groups of the Admin part, in the order they run.
func adminGroups() []group[adminFunc] {
	return []group[adminFunc]{
		{"Lifecycle", lifecycleCases()},
		{"Retention", retentionCases()},
		{"Limits", limitCases()},
		{"Rates", rateCases()},
		{"Unique", adminUniqueCases()},
		{"Replace", replaceCases()},
		{"Priority", priorityCases()},
		{"Groups", groupCases()},
		{"Stats", statsCases()},
		{"GetJob", getJobCases()},
		{"ListJobs", listCases()},
		{"Requeue", requeueCases()},
		{"Delete", deleteCases()},
		{"Cancel", cancelCases()},
		{"SentAgain", sentAgainCases()},
		{"Workers", adminWorkerCases()},
		{"Concurrency", adminConcurrencyCases()},
		{"ConfigSwap", configSwapCases()},
		{"Invalid", adminInvalidCases()},
	}
}
