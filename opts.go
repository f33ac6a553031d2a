package hopper

import (
	"reflect"
	"time"

	"github.com/hopperq/hopper/internal/fieldcopy"
)

// The options of a job, in one file: EnqueueOpts for Enqueue, and the
// options of the jobs hopper enqueues for you, TaskOpts (a workflow task)
// and ScheduleOpts (a schedule's ticks), which lack the fields their call
// decides itself, so that setting one does not compile. A new job option
// is a field of EnqueueOpts and, unless the call decides it, of TaskOpts
// and ScheduleOpts (TestOptsTypesAgree checks).

// NoRetry as EnqueueOpts.MaxRetries means the job is never retried.
const NoRetry = -1

// EnqueueOpts are per-call enqueue options. A nil *EnqueueOpts, and every
// zero field, means the default: the args' own EnqueueOpts when the type
// implements ArgsWithOpts, then the Client's config. Each option reaches
// the job's field of the same name (store.NewJob and its JobSpec), but
// Unique, which sets the unique key.
type EnqueueOpts struct {
	// Queue to put the job in. Defaults to the Client's queue ("default").
	Queue string
	// ID makes the enqueue idempotent: a job with this ID already in the
	// queue is reported as a duplicate instead of added. Defaults to a new
	// time-ordered ID. 1 to 128 bytes of printable ASCII, no spaces and no
	// '~', which is reserved for workflow tasks' job IDs (<workflow
	// ID>~<task>): an ID with it is refused with ErrInvalidJob. Not
	// allowed with EnqueueMany of more than one job.
	ID string
	// Delay runs the job this long after the store's now. Zero or negative
	// means now.
	Delay time.Duration
	// RunAt runs the job at this time; it wins over Delay. A time in the
	// past means now.
	RunAt time.Time
	// MaxRetries is how often a failed job is retried. Zero means the
	// Client's default (25); NoRetry (-1) means never. At most
	// store.MaxRetriesLimit (10,000); more, or below -1, is refused with
	// ErrInvalidJob.
	MaxRetries int
	// Timeout bounds each attempt (the handler's context deadline). Zero
	// means the worker's default.
	Timeout time.Duration
	// Retention keeps the job in done for this long after it succeeds, with
	// its result. Zero means the queue's retention (none by default).
	Retention time.Duration
	// Group puts the job in a group of its queue: a key such as a tenant,
	// customer or webhook endpoint (1 to 128 printable ASCII bytes, no
	// spaces or commas). Workers take turns over the groups with ready
	// jobs, up to four jobs of a group per turn (round robin), so a group
	// with a million jobs waiting and one with ten progress at one rate; a group's jobs start first in first
	// out (the package doc's Order section says what holds after a crash,
	// a retry or a shutdown); QueueConfig.GroupMaxRunning (with per-group GroupLimits) caps
	// how many of one group run at once across all workers, 1 meaning one
	// at a time. A grouped job has no Priority. Empty means no group: the
	// queue's ungrouped jobs then take their turn in the rotation as one
	// more group, without a cap. Zero means the args' own (ArgsWithOpts).
	Group string
	// Priority orders the job among the ready jobs of its queue: workers
	// claim higher priorities first, and jobs of one priority in the order
	// they became ready (first in, first out). From MinPriority (-3) to
	// MaxPriority (3); zero is the default level, so a job can be made
	// more or less urgent than the rest. A job keeps its priority through
	// delays, retries and requeues. Priority orders one queue; across
	// queues, WorkerConfig's weights decide. A worker starts the jobs of
	// one priority in the order it claimed them, and runs the jobs it
	// already holds (WorkerConfig.Prefetch) before a higher priority that
	// came since; Prefetch -1 with one slot runs strictly in order (see
	// Order in the package doc). A claim
	// costs one list pop per level in use, so the feature is free in a
	// queue that never saw a priority. Zero means the args' own
	// (ArgsWithOpts), else the default level.
	Priority int
	// Meta is string metadata stored with the job (trace context goes here),
	// at most MaxMetaBytes (64 KiB) of keys and values added up.
	// A key must not be empty, and "hopper-workflow" and "hopper-task"
	// (store.MetaWorkflow, store.MetaTask) mark a workflow task's job,
	// which only its workflow sets: every call that takes Meta (Enqueue,
	// and TaskOpts, ScheduleOpts, Prepare) refuses them with
	// ErrInvalidJob. Copying a task's Meta to a follow-up job, leave those
	// two out.
	Meta map[string]string
	// Unique, when set, makes the job unique in its queue while it waits or
	// runs: see UniqueOpts.
	Unique *UniqueOpts
	// Replace, when this job's ID or unique key is held by a job still
	// waiting (pending, ready or retry), changes that job instead of
	// dropping this one: ReplaceArgs gives it this job's kind, args, meta,
	// MaxRetries, Timeout, Retention, Group and Priority (a ready job moves
	// to the back of its new group or level), ReplaceRunAt this job's due time
	// (RunAt, or Delay from the store's now). JobInfo.Replaced reports a
	// change. Zero means a duplicate is dropped. Replace needs an ID or
	// Unique to match the job it replaces: without either (a new ID
	// matches no job) the enqueue fails with an error wrapping
	// ErrInvalidJob and nothing is stored.
	//
	//	holder is        ReplaceArgs         ReplaceRunAt
	//	pending, retry   takes the new args  due at the new time (ready if now)
	//	ready            takes the new args  back to pending if the new time is later
	//	running (unack)  unchanged; this job is added and takes the unique key
	//	done, garbage    unchanged: a duplicate
	//
	// A replaced job keeps its ID, attempt count, error history, enqueue
	// time and unique key; a workflow task's job is never replaced.
	// Debounce ("run once, D after the last event, with the last event's
	// args") is a unique key, Delay D and both flags:
	//
	//	hopper.EnqueueOpts{Unique: &hopper.UniqueOpts{Key: "reindex:" + user},
	//		Delay: 200 * time.Millisecond, Replace: hopper.ReplaceArgs | hopper.ReplaceRunAt}
	//
	// An event that arrives while the job runs cannot change what that run
	// read: it is added as a new job, which takes the unique key, so the
	// last event is always followed by a run (an ID held by a running job
	// is a plain duplicate: the ID cannot name two jobs). BullMQ calls this
	// debouncing; River and asynq have no equivalent at enqueue.
	Replace Replace
}

// UniqueOpts makes a job unique: while a job with the same key is in its
// queue and not finished, enqueueing another reports a duplicate naming the
// holder. The key is released when the job is acked, reaches garbage, is
// deleted or cancelled, or after For.
type UniqueOpts struct {
	// Key is the uniqueness key. Defaults to the job's kind and a hash of its
	// encoded args, so the same kind with equal args is one job.
	Key string
	// For bounds how long the key is held. Zero means until the job
	// finishes.
	For time.Duration
}

// TaskOpts are the options of a workflow task's job: EnqueueOpts without
// ID (a task's job ID is its workflow's ID and its name), Unique and
// Replace (a task is enqueued once per workflow). Each field means what
// the EnqueueOpts field of its name means; Delay and RunAt count from
// when the task is released. A nil *TaskOpts, and every zero field, means
// the default, as for EnqueueOpts.
type TaskOpts struct {
	Queue      string            // as EnqueueOpts.Queue
	Delay      time.Duration     // as EnqueueOpts.Delay, from the task's release
	RunAt      time.Time         // as EnqueueOpts.RunAt
	MaxRetries int               // as EnqueueOpts.MaxRetries
	Timeout    time.Duration     // as EnqueueOpts.Timeout
	Retention  time.Duration     // as EnqueueOpts.Retention
	Group      string            // as EnqueueOpts.Group
	Priority   int               // as EnqueueOpts.Priority
	Meta       map[string]string // as EnqueueOpts.Meta
}

// ScheduleOpts are the options of a schedule's jobs: EnqueueOpts without
// ID, Delay, RunAt and Replace, which each tick decides (its job gets a
// new ID and RunAt = the tick). Each field means what the EnqueueOpts
// field of its name means. A nil *ScheduleOpts, and every zero field,
// means the default.
type ScheduleOpts struct {
	Queue      string            // as EnqueueOpts.Queue
	MaxRetries int               // as EnqueueOpts.MaxRetries
	Timeout    time.Duration     // as EnqueueOpts.Timeout
	Retention  time.Duration     // as EnqueueOpts.Retention
	Group      string            // as EnqueueOpts.Group
	Priority   int               // as EnqueueOpts.Priority
	Meta       map[string]string // as EnqueueOpts.Meta
	// Unique makes each tick's job unique in its queue (see UniqueOpts): a
	// tick whose previous job is still waiting or running is reported as
	// a duplicate instead of piling up.
	Unique *UniqueOpts
}

// mergeOpts overlays opts on the args' own defaults: every field opts sets
// (not zero) wins. A Group opts sets wins over the args' Priority, and a
// Priority over their Group: a grouped job has no priority, and a call
// could not clear a default by leaving the field zero.
// The fields use does not take are left zero, whatever the args' say.
func mergeOpts(args Args, opts *EnqueueOpts, use optsFor) EnqueueOpts {
	var o EnqueueOpts
	if a, ok := args.(ArgsWithOpts); ok {
		o = a.EnqueueOpts()
	}
	if opts != nil {
		overlayPlan.Copy(&o, opts)
		switch {
		case opts.Group != "" && opts.Priority == 0:
			o.Priority = 0
		case opts.Priority != 0 && opts.Group == "":
			o.Group = ""
		}
	}
	use.clear(&o)
	return o
}

// optsFor is what a job's options are for: what an ArgsWithOpts default
// may not set there is cleared after the merge (the fields the call's
// options type lacks).
type optsFor uint8

const (
	forEnqueue optsFor = iota
	forTask
	forSchedule
)

var (
	// taskOptsPlan and scheduleOptsPlan copy TaskOpts and ScheduleOpts
	// into an EnqueueOpts, field by field of the same name.
	taskOptsPlan     = subsetPlan[TaskOpts]()
	scheduleOptsPlan = subsetPlan[ScheduleOpts]()
	// lacks are the EnqueueOpts fields each use does not take.
	lacks = [...][]int{
		forTask:     lackedBy[TaskOpts](),
		forSchedule: lackedBy[ScheduleOpts](),
	}
)

// enqueueOpts returns o as EnqueueOpts (nil for nil).
func (o *TaskOpts) enqueueOpts() *EnqueueOpts {
	if o == nil {
		return nil
	}
	var e EnqueueOpts
	taskOptsPlan.Copy(&e, o)
	return &e
}

// enqueueOpts returns o as EnqueueOpts (nil for nil).
func (o *ScheduleOpts) enqueueOpts() *EnqueueOpts {
	if o == nil {
		return nil
	}
	var e EnqueueOpts
	scheduleOptsPlan.Copy(&e, o)
	return &e
}

// clear zeroes the fields of o that use does not take.
func (use optsFor) clear(o *EnqueueOpts) {
	if use == forEnqueue {
		return
	}
	v := reflect.ValueOf(o).Elem()
	for _, i := range lacks[use] {
		v.Field(i).SetZero()
	}
}

// subsetPlan copies every field of S into the EnqueueOpts field of the
// same name; it panics (at start-up) if one has no such field.
func subsetPlan[S any]() *fieldcopy.Plan[S, EnqueueOpts] {
	et := reflect.TypeFor[EnqueueOpts]()
	var pairs []fieldcopy.Pair
	for _, f := range reflect.VisibleFields(reflect.TypeFor[S]()) {
		ef, ok := et.FieldByName(f.Name)
		if !ok || ef.Type != f.Type {
			panic("hopper: " + reflect.TypeFor[S]().Name() + "." + f.Name + " is not an EnqueueOpts field")
		}
		pairs = append(pairs, fieldcopy.Pair{From: f.Index, To: ef.Index})
	}
	return fieldcopy.New[S, EnqueueOpts](pairs, false)
}

// lackedBy returns the indexes of the EnqueueOpts fields S lacks.
func lackedBy[S any]() []int {
	st := reflect.TypeFor[S]()
	var out []int
	for i, f := range reflect.VisibleFields(reflect.TypeFor[EnqueueOpts]()) {
		if _, ok := st.FieldByName(f.Name); !ok {
			out = append(out, i)
		}
	}
	return out
}
