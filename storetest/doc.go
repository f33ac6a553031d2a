// Package storetest is the conformance suite for store.Store
// implementations, in the spirit of testing/slogtest: one call runs every
// behaviour the Store contract promises (the rules in the Store interface's
// doc comments and the lifecycle of DESIGN.md §3) as its own subtest.
//
// A store author calls Run from a test in the store's package, with a
// function that returns a fresh, empty store for each subtest:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			return mystore.New(connect(t))
//		})
//	}
//
// Subtests are named by group and behaviour ("Enqueue/DuplicateID/Garbage",
// "Claim/MaxRunning", ...), so one of them can be run alone with
// go test -run 'Conformance/Claim/MaxRunning'.
//
// Every subtest calls newStore and t.Parallel, so newStore must be safe to
// call from several goroutines and each store must be safe to use next to
// the others. Stores may share one server: the suite uses a fresh random queue
// name in every subtest. The few store-wide listings (Queues, Workers,
// Schedules) are checked only for the names the subtest created, so other
// data on the server does no harm. Release per-store resources with
// t.Cleanup; Run returns only after every subtest has finished.
//
// The stores run on real time: the suite uses short real durations (tens to
// a few hundred milliseconds) and waits for conditions by polling with a
// generous deadline (10s), never by sleeping. It never asserts that
// something was fast: a deadline only tells a wait woken by an event from
// one that ran into its own, much longer timeout. Times the store reports
// are compared with the test's clock only loosely (within two seconds), so
// a store whose clock is a server's clock on the same network passes; times
// are compared with each other to the millisecond.
package storetest
