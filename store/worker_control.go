package store

import (
	"context"
	"fmt"
	"time"
)

// WorkerCommand is what an operator asks of a running worker process
// (WorkerControl). The zero value is no command.
type WorkerCommand string

const (
	// WorkerQuiet asks a worker to stop claiming jobs: the jobs it runs
	// finish, the ones it claimed and had not started go back to ready at
	// once, and the process stays up (its Run does not return) until it is
	// stopped. Its WorkerInfo.State becomes WorkerStateQuiet.
	WorkerQuiet WorkerCommand = "quiet"
	// WorkerStop asks a worker to shut down as when its Run's context
	// ends: it stops claiming, lets running jobs finish for up to its
	// ShutdownTimeout, and its Run returns nil. Its WorkerInfo.State is
	// WorkerStateStopping until its record goes.
	WorkerStop WorkerCommand = "stop"
)

// WorkerState is what a worker process says it is doing, in its heartbeat
// (WorkerInfo.State).
type WorkerState string

const (
	// WorkerStateRunning claims and runs jobs. It is the zero value, so a
	// process of an older version reads as running.
	WorkerStateRunning WorkerState = ""
	// WorkerStateQuiet claims nothing and finishes the jobs it runs
	// (WorkerQuiet).
	WorkerStateQuiet WorkerState = "quiet"
	// WorkerStateStopping is shutting down (WorkerStop, or its Run's
	// context ended).
	WorkerStateStopping WorkerState = "stopping"
)

// WorkerCommandTTL is how long a command waits for its worker: one not
// taken by then is dropped, so a command sent to a process that died does
// not stop a later one that reuses its ID.
const WorkerCommandTTL = 10 * time.Minute

// WorkerControl is an optional Store interface that carries operator
// commands to worker processes: the dashboard sends one, and the worker
// takes it on its next heartbeat (every WorkerConfig.HeartbeatInterval,
// sooner while jobs start). Find it with As. Implementations are safe for
// concurrent use.
type WorkerControl interface {
	// SendWorkerCommand leaves cmd for worker id, replacing a command not
	// yet taken. It expires after WorkerCommandTTL. It does not check that
	// the worker is live. A bad id or cmd gives an error wrapping
	// ErrInvalidConfig (ValidateWorkerCommand).
	SendWorkerCommand(ctx context.Context, id string, cmd WorkerCommand) error
	// TakeWorkerCommand returns the command waiting for worker id and
	// removes it, atomically: two calls never both return it. It returns
	// "" when none waits.
	TakeWorkerCommand(ctx context.Context, id string) (WorkerCommand, error)
}

// ValidateWorkerCommand checks what SendWorkerCommand records: a non-empty
// worker ID of at most MaxIDLen bytes and a known command. It returns an
// error wrapping ErrInvalidConfig.
func ValidateWorkerCommand(id string, cmd WorkerCommand) error {
	if id == "" || len(id) > MaxIDLen {
		return fmt.Errorf("%w: worker ID must be 1 to %d bytes, got %d", ErrInvalidConfig, MaxIDLen, len(id))
	}
	if cmd != WorkerQuiet && cmd != WorkerStop {
		return fmt.Errorf("%w: unknown worker command %q (want %q or %q)", ErrInvalidConfig, cmd, WorkerQuiet, WorkerStop)
	}
	return nil
}
