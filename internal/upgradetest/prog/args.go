package main

import (
	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/upgradetest/evidence"
)

// The queues, named in package evidence, which the test reads too.
const (
	queueMain   = evidence.QueueMain
	queueDead   = evidence.QueueDead
	queueGroups = evidence.QueueGroups
	queueFlow   = evidence.QueueFlow
	queueTick   = evidence.QueueTick
)

// Payload is what every job carries. ID names the job in the evidence
// (for a plain job it is also the job's ID).
type Payload struct {
	ID string
	// NotBefore is, for a delayed job, the earliest the producer allowed
	// it to run (Unix milliseconds, the producer's clock, taken before the
	// enqueue; the store counts the delay from its own later now).
	NotBefore int64
	// Group and Seq place a grouped job in its group's enqueue order.
	Group string
	Seq   int
	// Deps are the payload IDs of a workflow task's dependencies, which
	// must have completed before it runs.
	Deps []string
}

// Plain is a job that succeeds (delayed or not).
type Plain struct{ Payload }

// Kind implements hopper.Args.
func (Plain) Kind() string { return "ut_plain" }

// Retried fails its first attempt and succeeds on the next.
type Retried struct{ Payload }

// Kind implements hopper.Args.
func (Retried) Kind() string { return "ut_retried" }

// Doomed always fails; with its small MaxRetries it ends in garbage.
type Doomed struct{ Payload }

// Kind implements hopper.Args.
func (Doomed) Kind() string { return "ut_doomed" }

// Grouped is a job of a group capped at one running job.
type Grouped struct{ Payload }

// Kind implements hopper.Args.
func (Grouped) Kind() string { return "ut_grouped" }

// Task is a workflow task.
type Task struct{ Payload }

// Kind implements hopper.Args.
func (Task) Kind() string { return "ut_task" }

// Tick is the schedule's job.
type Tick struct{}

// Kind implements hopper.Args.
func (Tick) Kind() string { return "ut_tick" }

var (
	_ hopper.Args = Plain{}
	_ hopper.Args = Tick{}
)
