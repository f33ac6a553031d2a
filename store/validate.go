package store

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidateQueue returns nil for a valid queue name: 1 to MaxQueueNameLen
// bytes of ASCII letters, digits, '_', '.' and '-', optionally followed by
// a partition suffix "~N" (see SplitPartition). Otherwise it returns an
// error wrapping ErrInvalidQueue that says what is wrong.
func ValidateQueue(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty", ErrInvalidQueue)
	}
	if len(name) > MaxQueueNameLen {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrInvalidQueue, len(name), MaxQueueNameLen)
	}
	if base, _, ok := SplitPartition(name); ok {
		name = base
	} else if i := strings.IndexByte(name, '~'); i >= 0 {
		return fmt.Errorf("%w: %q: a partition is named <queue>~N, N from 0 to %d without leading zeros", ErrInvalidQueue, name, MaxPartitions-1)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' {
			continue
		}
		return fmt.Errorf("%w: %q has %q at byte %d (allowed: letters, digits, '_', '.', '-')", ErrInvalidQueue, name, name[i:i+1], i)
	}
	return nil
}

// ValidateEnqueueQueue returns nil for a queue a caller names for a new
// job (hopper's EnqueueOpts.Queue, TaskOpts.Queue, ClientConfig.Queue): a
// valid queue name (ValidateQueue) that is not a partition's
// ("<queue>~N", see PartitionName), nor "." or "..". A store that
// partitions a queue picks each job's partition itself, by its group,
// unique key, schedule or ID, which keeps their guarantees; a queue that
// is not partitioned has none.
// Stores accept partition names in the calls that take one. It returns an
// error wrapping ErrInvalidQueue.
func ValidateEnqueueQueue(name string) error {
	if err := ValidateQueue(name); err != nil {
		return err
	}
	if q, _, ok := SplitPartition(name); ok {
		return fmt.Errorf("%w: %q names a partition of queue %q: enqueue into %q (a partitioned queue's store picks the partition)", ErrInvalidQueue, name, q, q)
	}
	if dotSegment(name) {
		return fmt.Errorf("%w: %q is a path's dot segment, which a browser drops from the queue's address (the dashboard's pages of the queue): use another name", ErrInvalidQueue, name)
	}
	return nil
}

// EnqueueQueueNeedsCheck reports whether a queue a caller names for a new
// job, valid for a store (ValidateQueue), needs ValidateEnqueueQueue's
// check: it holds '~' or is "." or "..". A cheap test for the enqueue
// path.
func EnqueueQueueNeedsCheck(name string) bool {
	return strings.IndexByte(name, '~') >= 0 || dotSegment(name)
}

// ValidateID returns nil for a valid job ID (1 to MaxIDLen bytes of
// printable ASCII, no spaces), or an error wrapping ErrInvalidJob.
func ValidateID(id string) error {
	if id == "" || len(id) > MaxIDLen {
		return fmt.Errorf("%w: ID must be 1 to %d bytes, got %d", ErrInvalidJob, MaxIDLen, len(id))
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%w: ID %q has %q at byte %d (allowed: printable ASCII, no spaces)", ErrInvalidJob, id, id[i:i+1], i)
		}
	}
	return nil
}

// ValidateEnqueueID returns nil for a job ID a caller gives a new job
// (hopper's EnqueueOpts.ID, a prepared job's ID): a valid ID (ValidateID)
// without '~', which is reserved for workflow tasks' job IDs (TaskJobID),
// and other than "." and "..".
// Otherwise it returns an error wrapping ErrInvalidJob. A store accepts
// '~' (it stores tasks' jobs): the client checks a caller's ID with this
// where it enters, so that a plain job cannot take a task's ID.
func ValidateEnqueueID(id string) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	if i := strings.IndexByte(id, '~'); i >= 0 {
		return fmt.Errorf("%w: ID %q has '~' at byte %d, which is reserved for workflow tasks' job IDs (<workflow ID>~<task>)", ErrInvalidJob, id, i)
	}
	if dotSegment(id) {
		return fmt.Errorf("%w: ID %q is a path's dot segment, which a browser drops from the job's address (the dashboard's page of the job): use another", ErrInvalidJob, id)
	}
	return nil
}

// EnqueueIDNeedsCheck reports whether a caller's job ID, valid for a
// store (ValidateID), needs ValidateEnqueueID's check: it holds '~' or
// is "." or "..". A cheap test for the enqueue path.
func EnqueueIDNeedsCheck(id string) bool {
	return strings.IndexByte(id, '~') >= 0 || dotSegment(id)
}

// dotSegment reports whether s is "." or "..", which a browser drops from
// a URL's path (written %2E too): a job or queue so named has no address
// in the dashboard.
func dotSegment(s string) bool { return s == "." || s == ".." }

// ValidateGroup returns nil for an empty group or a valid one (1 to
// MaxGroupLen printable ASCII bytes without spaces or commas), or an error
// wrapping ErrInvalidJob.
func ValidateGroup(g string) error {
	if len(g) > MaxGroupLen {
		return fmt.Errorf("%w: Group must be at most %d bytes, got %d", ErrInvalidJob, MaxGroupLen, len(g))
	}
	for i := 0; i < len(g); i++ {
		if c := g[i]; c <= ' ' || c > '~' || c == ',' {
			return fmt.Errorf("%w: Group %q has %q at byte %d (allowed: printable ASCII, no spaces or commas)", ErrInvalidJob, g, g[i:i+1], i)
		}
	}
	return nil
}

// ValidateKind returns nil for a valid kind (1 to MaxKindLen bytes of UTF-8
// without control characters), or an error wrapping ErrInvalidJob.
func ValidateKind(kind string) error {
	if kind == "" || len(kind) > MaxKindLen || !utf8.ValidString(kind) || hasControl(kind) {
		return fmt.Errorf("%w: Kind %q must be 1 to %d bytes of UTF-8 without control characters", ErrInvalidJob, kind, MaxKindLen)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

// ValidateQueues returns the error of the first invalid name in queues.
func ValidateQueues(queues []string) error {
	for _, q := range queues {
		if err := ValidateQueue(q); err != nil {
			return err
		}
	}
	return nil
}
