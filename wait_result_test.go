package hopper_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestWaitResultDecodesTheResult: a job enqueued earlier is waited for
// and its result decoded into the caller's type.
func TestWaitResultDecodesTheResult(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	info, err := hopper.Enqueue(t.Context(), c, Square{N: 7}, &hopper.EnqueueOpts{Retention: hopper.WaitRetention})
	if err != nil {
		t.Fatal(err)
	}
	squareWorker(t, s)
	if got, err := hopper.WaitResult[int](t.Context(), c, info.Queue, info.ID); err != nil || got != 49 {
		t.Fatalf("WaitResult[int] of Square{7}: %d, %v; want 49, nil", got, err)
	}
	type Res struct{ A []string }
	if _, err := hopper.WaitResult[Res](t.Context(), c, info.Queue, info.ID); !errors.Is(err, hopper.ErrDecode) || !strings.Contains(err.Error(), info.ID) {
		t.Fatalf("WaitResult into another type: %v, want ErrDecode naming job %q", err, info.ID)
	}
	if _, err := hopper.WaitResult[int](t.Context(), c, info.Queue, "never-enqueued"); !errors.Is(err, hopper.ErrJobNotFound) {
		t.Fatalf("WaitResult of a job never enqueued: %v, want ErrJobNotFound", err)
	}
}

// TestDecodeResult: a record without a result gives the zero value; a nil
// record an error.
func TestDecodeResult(t *testing.T) {
	if got, err := hopper.DecodeResult[int](&hopper.JobRecord{ID: "j"}); err != nil || got != 0 {
		t.Errorf("DecodeResult of a job without a result: %d, %v; want 0, nil", got, err)
	}
	if _, err := hopper.DecodeResult[int](nil); err == nil {
		t.Errorf("DecodeResult(nil): no error, want one")
	}
	if _, err := hopper.DecodeResult[int](&hopper.JobRecord{ID: "j", Result: []byte{0xc1}}); !errors.Is(err, hopper.ErrDecode) {
		t.Errorf("DecodeResult of bytes that are no msgpack: %v, want ErrDecode", err)
	}
}
