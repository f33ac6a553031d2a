// Package execer is the contract between package outbox and the adapters
// of other modules' connections (pgxoutbox.Tx): an adapter that can tell
// it has nothing to run statements on says so before outbox writes.
package execer

// Checker is an outbox.Execer that can report that it cannot run
// statements: an adapter of a nil connection or transaction. Enqueue,
// EnqueueMany and Migrate call Check before anything else and return its
// error, which wraps hopper.ErrInvalidConfig and says what was nil and what
// to pass instead. Check is cheap and safe for concurrent use.
type Checker interface {
	CheckExecer() error
}
