package hopper

import (
	"errors"
	"fmt"
	"reflect"
)

// DecodeArgs decodes the args of rec, a job as the Inspector (GetJob,
// ListJobs, SearchJobs) or Client.WaitJob return it, into a T, with the
// guards a worker decodes with (a header that claims more than the bytes
// hold, nesting deeper than MaxArgsDepth, a panic in the decoder). A job
// of another kind than T's is refused, as its args would decode into T's
// zero fields without a word. Errors wrap ErrDecode and name the job and
// T ("hopper: cannot decode args of job ... into T: ..."); T is then
// zero. A nil rec is an error. Safe for concurrent use.
func DecodeArgs[T Args](rec *JobRecord) (T, error) {
	var zero T
	if rec == nil {
		return zero, errors.New("hopper: DecodeArgs of a nil JobRecord")
	}
	k, ok := safeKind(zero)
	if !ok {
		return zero, fmt.Errorf("%w args of job %q of queue %q into %v: %v.Kind panicked on a zero value (declare Kind on the value type)",
			ErrDecode, rec.ID, rec.Queue, reflect.TypeFor[T](), reflect.TypeFor[T]())
	}
	if rec.Kind != k {
		return zero, fmt.Errorf("%w args of job %q of queue %q into %v: the job is of kind %q, not %q",
			ErrDecode, rec.ID, rec.Queue, reflect.TypeFor[T](), rec.Kind, k)
	}
	var v T
	if err := decodeMsgpack(rec.Args, &v); err != nil {
		return zero, fmt.Errorf("%w args of job %q of queue %q into %v: %v", ErrDecode, rec.ID, rec.Queue, reflect.TypeFor[T](), err)
	}
	return v, nil
}

// safeKind returns a.Kind(), false when it panics (a Kind declared on a
// pointer receiver, called on a nil pointer).
func safeKind(a Args) (kind string, ok bool) {
	defer func() {
		if recover() != nil {
			kind, ok = "", false
		}
	}()
	return a.Kind(), true
}
