package specview

import (
	"time"

	"github.com/hopperq/hopper/store"
)

// JSONError is one failed attempt of a job (store.AttemptError, which has
// no JSON names) as the dashboard's JSON and "hopper jobs --json" give it:
// when it failed, its error and stack, and when its handler started and
// on which worker, absent for a failure no handler saw (an expired lease,
// a cancel).
type JSONError struct {
	Attempt   int        `json:"attempt"`
	At        time.Time  `json:"at"`
	Error     string     `json:"error"`
	Stack     string     `json:"stack,omitempty"`
	StartedAt *time.Time `json:"started_at,omitempty"`
	Worker    string     `json:"worker,omitempty"`
}

// JSONErrors returns a job's failed attempts as JSONError, times in UTC.
// It returns nil when there are none.
func JSONErrors(errs []store.AttemptError) []JSONError {
	var out []JSONError
	for _, e := range errs {
		je := JSONError{Attempt: e.Attempt, At: e.At.UTC(), Error: e.Error, Stack: e.Stack, Worker: e.Worker}
		if !e.StartedAt.IsZero() {
			started := e.StartedAt.UTC()
			je.StartedAt = &started
		}
		out = append(out, je)
	}
	return out
}
