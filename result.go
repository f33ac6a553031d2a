package hopper

import (
	"context"
	"errors"
	"fmt"

	"github.com/hopperq/hopper/internal/engine"
)

// RecordResult stores v, encoded with msgpack, as the result of the job
// running in ctx. It is kept with the job when the handler succeeds and the
// job has a retention (EnqueueOpts.Retention or the queue's); later calls
// replace earlier ones. It returns an error outside a handler, or when the
// encoded result is larger than MaxResultBytes; a v msgpack cannot encode
// (a channel or a func in it) or nested deeper than MaxArgsDepth gives an
// error wrapping ErrInvalidJob.
func RecordResult(ctx context.Context, v any) error {
	b, err := encodeValue("result", v, nil)
	if err != nil {
		return err
	}
	if len(b) > MaxResultBytes {
		return fmt.Errorf("hopper: result of %d bytes is over MaxResultBytes (%d)", len(b), MaxResultBytes)
	}
	if !engine.SetResult(ctx, b) {
		return errors.New("hopper: RecordResult called outside a job handler")
	}
	return nil
}
