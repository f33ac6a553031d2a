package hopper

import (
	"fmt"
	"reflect"
)

// Args is implemented by every job argument type. Kind names the handler and
// is stored with the job, so it must stay stable across deploys. Implement it
// on the value type (not the pointer) so Handle can read it from a zero value.
type Args interface {
	Kind() string
}

// checkArgs returns an error wrapping ErrInvalidJob when args is nil or a
// nil pointer: its Kind may panic (declared on the value type) and its
// handler would get nil Args. It does not allocate.
func checkArgs(args Args) error {
	if args == nil {
		return fmt.Errorf("%w: args are nil", ErrInvalidJob)
	}
	if v := reflect.ValueOf(args); v.Kind() == reflect.Pointer && v.IsNil() {
		return fmt.Errorf("%w: args are a nil %T", ErrInvalidJob, args)
	}
	return nil
}

// ArgsWithOpts is implemented by argument types that carry their own default
// enqueue options (a queue, retries, a timeout). Opts given to Enqueue
// override them field by field; a Group given overrides the type's
// Priority too, and a Priority given its Group (a grouped job has no
// priority). They apply to workflow tasks and schedule
// ticks of the type too, without the fields TaskOpts or ScheduleOpts lack
// (ID, Unique and Replace for a task; ID, Delay, RunAt and Replace for a
// tick), which are ignored there.
type ArgsWithOpts interface {
	Args
	EnqueueOpts() EnqueueOpts
}

// Job is a claimed job with its decoded arguments, as a handler sees it. The
// embedded JobRecord carries the ID, Queue, Attempt, Meta and error history;
// its Args field (the encoded bytes) is shadowed by the decoded Args.
//
// A Job is owned by the handler call it is passed to; it must not be kept
// after the handler returns.
type Job[T Args] struct {
	*JobRecord
	// Args are the decoded arguments.
	Args T
}
