package storetest

import (
	"testing"

	"github.com/hopperq/hopper/store"
)

// Run checks the Store that newStore returns against the store.Store
// contract, one subtest per behaviour, grouped by area
// ("Enqueue/...", "Claim/...", "Finish/...", ...).
//
// newStore is called once per subtest, from that subtest's goroutine, and
// must return a store with no jobs in it (or at least none in the queues the
// subtest uses: queue names are random). It may call t.Fatal and register
// t.Cleanup to release the store. Subtests run in parallel; Run returns when
// all of them have finished.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	for _, g := range groups() {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				c.run(t, newStore)
			}
		})
	}
}

// group is one area of the contract: Enqueue, Claim, Finish, ...
type group struct {
	name  string
	cases []testCase
}

// testCase is one behaviour, or a named set of behaviours (sub).
type testCase struct {
	name string
	fn   func(t *testing.T, s store.Store)
	sub  []testCase
}

// run runs c as a parallel subtest of t with its own store, or its sub cases
// under one parallel subtest named c.name.
func (c testCase) run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run(c.name, func(t *testing.T) {
		t.Parallel()
		if c.fn == nil {
			for _, sc := range c.sub {
				sc.run(t, newStore)
			}
			return
		}
		s := newStore(t)
		if s == nil {
			t.Fatal("newStore returned a nil Store")
		}
		c.fn(t, s)
	})
}

// groups lists every group of the suite in the order they run.
func groups() []group {
	return []group{
		{"Enqueue", enqueueCases()},
		{"Unique", uniqueCases()},
		{"Periodic", periodicCases()},
		{"Claim", claimCases()},
		{"Finish", finishCases()},
		{"Extend", extendCases()},
		{"Maintain", maintainCases()},
		{"Wait", waitCases()},
		{"Stats", statsCases()},
		{"GetJob", getJobCases()},
		{"ListJobs", listCases()},
		{"Requeue", requeueCases()},
		{"Delete", deleteCases()},
		{"Cancel", cancelCases()},
		{"Workers", workerCases()},
		{"Schedules", scheduleCases()},
		{"Concurrency", concurrencyCases()},
	}
}
