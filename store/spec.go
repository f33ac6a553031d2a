package store

import "time"

// JobSpec is a job's options: what it asks of the store besides its
// identity (ID, queue, kind, args) and when it is enqueued. It is defined
// once, here: NewJob and JobRecord embed it, so a record carries every
// option its job was enqueued with, and every wire format (the Redis
// envelope, hopper.PreparedJob, the stored schedules) and every display
// (the dashboard's job page, "hopper jobs show") derives from its fields.
// The zero value asks for nothing: every field's zero means the default.
//
// To add an option, add a field here with a zero value that means "not
// set", a `wire` key no field has used before (the field's key in every
// keyed format; never change one), and its rules in Validate; give
// hopper.EnqueueOpts a field of the same name and type, and TaskOpts and
// ScheduleOpts too unless their call decides it (all in hopper's
// opts.go), and say in redisstore's fieldScripts which enqueue script
// reads it. Nothing else needs an edit: the codecs are built from these fields by reflection
// (internal/wire), and a test walks every field through every format and
// path. Supported types: string, bool, integers, time.Duration,
// time.Time, []byte, []string and map[string]string; for a slice or a
// map, empty counts as zero.
//
// A JobSpec is a value: copying it shares its Meta map (see Clone).
type JobSpec struct {
	// Group puts the job in a group of its queue (a key such as a tenant
	// ID: 1 to MaxGroupLen printable ASCII bytes, no spaces or commas;
	// empty for none). A claim rotates over the groups that have ready
	// jobs, a turn of up to four jobs each (one each when a claim wants no
	// more), and takes a group's jobs first in first out;
	// QueueConfig.GroupMaxRunning and Groups.SetGroupLimit cap how many of
	// a group's jobs run at once. A grouped job has no Priority.
	Group string `wire:"g"`
	// Priority orders the job among the ready jobs of its queue: a claim
	// takes the highest priority first, and jobs of equal priority in the
	// order they became ready. From MinPriority to MaxPriority; zero is
	// the default level.
	Priority int `wire:"pr"`
	// MaxRetries is how many times a failed attempt is retried: the job
	// gets at most MaxRetries+1 attempts. Zero means no retry.
	MaxRetries int `wire:"r"`
	// Timeout bounds one attempt. Zero means the worker's default.
	Timeout time.Duration `wire:"t"`
	// Retention keeps the job in done for this long after it succeeds. Zero
	// means the queue's QueueConfig.Retention, which defaults to none.
	Retention time.Duration `wire:"ret"`
	// UniqueKey, when set, makes the job unique in its queue: while another
	// job holds the key, Enqueue reports a duplicate instead. The key is
	// released when its job is acked, dies, is deleted or is cancelled, or
	// after UniqueFor when that is set. At most MaxUniqueKeyLen bytes.
	UniqueKey string `wire:"uk"`
	// UniqueFor bounds how long the unique key is held. Zero means until the
	// job finishes.
	UniqueFor time.Duration `wire:"uf"`
	// Meta carries string metadata such as trace context. Nil when the job
	// has none.
	Meta map[string]string `wire:"m"`
}
