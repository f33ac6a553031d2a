package hopper

import (
	"context"
	"errors"
	"fmt"
)

// DecodeResult decodes into an R the result that rec's handler recorded
// with RecordResult: rec as Client.WaitJob or Inspector.GetJob return it.
// A job without a recorded result (none recorded, not acked yet, or
// dead) gives the zero R and nil; a result that does not decode into R,
// an error wrapping ErrDecode that names the job and R ("hopper: cannot
// decode result of job ... into R: ..."). A nil rec is an error.
func DecodeResult[R any](rec *JobRecord) (R, error) {
	if rec == nil {
		var zero R
		return zero, errors.New("hopper: DecodeResult of a nil JobRecord")
	}
	if len(rec.Result) == 0 {
		var zero R
		return zero, nil
	}
	return decodeResult[R](rec.Result, fmt.Sprintf("job %q of queue %q", rec.ID, rec.Queue))
}

// WaitResult waits for the job id of queue to end as Client.WaitJob does,
// with the same errors, and decodes its result into an R as DecodeResult
// does: the typed wait for a job enqueued earlier, where EnqueueAndWait
// enqueues and waits in one call. Use Client.WaitJob and DecodeResult
// when the job's record is wanted too (its attempt, or why it died).
// Safe for concurrent use.
func WaitResult[R any](ctx context.Context, c *Client, queue, id string) (R, error) {
	var zero R
	if c.unmade() {
		return zero, errNilClient
	}
	rec, err := c.WaitJob(ctx, queue, id)
	if err != nil {
		return zero, err
	}
	return DecodeResult[R](rec)
}
