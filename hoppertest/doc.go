// Package hoppertest helps test code that uses hopper, on the in-memory
// store and a clock the test moves by hand:
//
//   - Work runs one job through a handler exactly as a worker would (the
//     args encoded and decoded, your middleware, the outcome reported to
//     the store) and says what became of it.
//   - Drain runs, synchronously, every job a Worker would pick up now, and
//     with a Clock, the delayed and retried ones once the clock passes
//     their due time.
//   - RequireEnqueued and RequireNotEnqueued assert that code under test
//     enqueued (or did not enqueue) a job with given args.
//
// The helpers take a T (a *testing.T or *testing.B, or anything with the
// same three methods) and fail the test with a message that says what they
// looked for and what they found.
package hoppertest

// T is what the helpers need of a test; *testing.T and *testing.B have it.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}
