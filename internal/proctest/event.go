package proctest

import (
	"time"

	"github.com/hopperq/hopper/store"
)

// Events every child may report; roles name their own (start, end, claim,
// ...).
const (
	// EvReady says the child is ready: it serves, or takes commands.
	EvReady = "ready"
	// EvError reports what went wrong in the child; it fails the test.
	EvError = "error"
)

// Event is one line a child reports: what happened, when, and to which job.
// A role fills in what it knows; At, when zero, is set as the child writes
// the line, and Child and PID as the parent reads it. At is the child's
// wall clock (never skewed); the other times are the store's clock.
type Event struct {
	Ev    string    `json:"ev"`
	Child string    `json:"-"` // the child's name
	PID   int       `json:"-"` // the child's process ID
	At    time.Time `json:"at"`

	// The job it is about.
	Queue   string `json:"q,omitempty"`
	Job     string `json:"job,omitempty"`
	Attempt int    `json:"att,omitempty"`
	Token   uint64 `json:"tok,omitempty"`
	Group   string `json:"grp,omitempty"`

	// Times by the store's clock.
	RunAt       time.Time `json:"runat,omitzero"`     // when the job fell due (a periodic job's tick)
	AttemptedAt time.Time `json:"attempted,omitzero"` // when the attempt was claimed
	Deadline    time.Time `json:"deadline,omitzero"`  // the lease's end, as claimed
	FinishedAt  time.Time `json:"finished,omitzero"`  // when the job ended
	StoreAt     time.Time `json:"storeat,omitzero"`   // when this happened (Redis TIME, an event's time)

	// How it went.
	Outcome string          `json:"out,omitempty"`   // the outcome a finish asked for
	State   store.JobState  `json:"state,omitempty"` // the state a job was found in, or ended in
	Type    store.EventType `json:"type,omitempty"`  // the type of a store event the child read
	Err     string          `json:"err,omitempty"`

	// What a role counted.
	Sched   string           `json:"sched,omitempty"`   // the schedule of a periodic job
	Running int64            `json:"running,omitempty"` // a probe counter right after a handler started
	Seq     int64            `json:"seq,omitempty"`     // a start's place in the order of all starts
	Round   int              `json:"round,omitempty"`   // the round of a command
	Dup     bool             `json:"dup,omitempty"`     // an enqueue found a duplicate
	Counts  map[string]int64 `json:"counts,omitempty"`  // cumulative counts by name (commands sent)
}

// Is accepts the events named ev.
func Is(ev string) func(Event) bool { return func(e Event) bool { return e.Ev == ev } }
