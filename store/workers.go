package store

import (
	"fmt"
	"time"
)

// RunningJob is a job a worker process is running.
type RunningJob struct {
	Queue     string
	ID        string
	Kind      string
	StartedAt time.Time
}

// WorkerInfo describes a live worker process.
type WorkerInfo struct {
	// ID names the process (hopper.WorkerConfig.ID).
	ID string
	// Host and PID locate it.
	Host string
	PID  int
	// Queues it works on, with their weights.
	Queues map[string]int
	// Concurrency is the size of its pool.
	Concurrency int
	// StartedAt is when it started, on its own clock.
	StartedAt time.Time
	// HeartbeatAt is set by the store on each Heartbeat, on its clock.
	HeartbeatAt time.Time
	// Running lists the jobs it runs (at most 1000).
	Running []RunningJob
	// Processed counts the attempts whose handlers returned in this
	// process since it started, whatever their outcome; Failed those of
	// them that failed (the job went to retry or garbage). Zero for a
	// process that reports none (an older version).
	Processed, Failed int64
	// State is what the process says it is doing: running (the zero
	// value, also for an older version), quiet or stopping (see
	// WorkerControl).
	State WorkerState
}

// ScheduleInfo describes a periodic schedule.
type ScheduleInfo struct {
	// Name identifies the schedule; ticks are recorded per name and queue.
	Name string
	// Spec is the schedule as written: a cron expression or "@every 1m".
	Spec  string
	Queue string
	Kind  string
	// Next is the next tick after registration, as the registering process
	// computed it.
	Next time.Time
	// LastTick is the latest tick enqueued; zero if none. Filled in by
	// Schedules.
	LastTick time.Time
	// SeenAt is when a running scheduler last registered the schedule, on
	// that process's clock. Schedulers register again every
	// ScheduleRefresh, so a SeenAt several of those old means no live
	// process runs the schedule (the dashboard marks it orphaned). Zero
	// when the registering process did not say (an older version).
	SeenAt time.Time
	// Stored marks the registration of a stored schedule (one of
	// ScheduleStore's, which a scheduler runs from the store): a store
	// records it only while that stored schedule exists, atomically with
	// the check, so a scheduler that registers it again after it was
	// deleted, before it saw the deletion, leaves no registration behind.
	// False (the zero value) for a schedule declared in code, which is
	// always recorded. Not kept: ListSchedules returns it false.
	Stored bool
}

// ScheduleRefresh is how often a running scheduler registers its periodic
// schedules again (RegisterSchedules), refreshing their SeenAt and Next:
// one write per scheduler per minute.
const ScheduleRefresh = time.Minute

// ValidateHeartbeat checks what Store.Heartbeat records: a non-empty ID of
// at most MaxIDLen bytes, valid queue names and a ttl of at least a
// millisecond. It returns an error wrapping ErrInvalidConfig or
// ErrInvalidQueue.
func ValidateHeartbeat(w WorkerInfo, ttl time.Duration) error {
	if w.ID == "" || len(w.ID) > MaxIDLen {
		return fmt.Errorf("%w: WorkerInfo.ID must be 1 to %d bytes, got %d", ErrInvalidConfig, MaxIDLen, len(w.ID))
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("%w: heartbeat ttl %v must be at least 1ms", ErrInvalidConfig, ttl)
	}
	for q := range w.Queues {
		if err := ValidateQueue(q); err != nil {
			return fmt.Errorf("worker %q: %w", w.ID, err)
		}
	}
	return nil
}

// ValidateSchedules checks what Store.RegisterSchedules records: every
// schedule has a Name and a valid Queue. It returns an error wrapping
// ErrInvalidConfig or ErrInvalidQueue.
func ValidateSchedules(list []ScheduleInfo) error {
	for _, s := range list {
		if s.Name == "" {
			return fmt.Errorf("%w: ScheduleInfo.Name is empty", ErrInvalidConfig)
		}
		if err := ValidateQueue(s.Queue); err != nil {
			return fmt.Errorf("schedule %q: %w", s.Name, err)
		}
	}
	return nil
}
