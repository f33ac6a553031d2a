package pgxoutbox

import "fmt"

// storedError is a batch that failed after its jobs reached the store
// (deleting their rows, or committing that, failed): the rows stay in the
// outbox, so a later batch stores the same jobs again, under the same IDs.
// What that does is the package's guarantee (see Relay): a job the store
// still holds is a duplicate and is not added; one that already finished
// and left the store runs again.
type storedError struct {
	stored int // jobs in the store (added, or already there) whose rows stay
	err    error
}

func (e *storedError) Error() string {
	return fmt.Sprintf("%d jobs already stored, their rows left in the outbox to be stored again: %v", e.stored, e.err)
}

func (e *storedError) Unwrap() error { return e.err }

// storedWarning is the log message of a storedError: what a user sees
// before the duplicates it explains.
const storedWarning = "pgxoutbox: relay batch failed after storing its jobs; their rows stay in the outbox and a later batch stores the jobs again under the same IDs: " +
	"a job the store still holds (waiting, running, retrying, dead, or done within its Retention) is a duplicate and is not added again; " +
	"one that already finished and left the store (no Retention, or a shorter one) runs again"
