package hopper_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestResultDecodeErrorSaysResult: a result that does not decode into the
// type asked for gives an error wrapping ErrDecode that says a result did
// not decode, naming the job and the type, "hopper:" once; it said
// "hopper: result of job ...: cannot decode args: ...", as if the args
// had not decoded. Args that do not decode still say "cannot decode
// args", and a worker sends the job to garbage with that error.
func TestResultDecodeErrorSaysResult(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := hopper.DecodeResult[int](&hopper.JobRecord{ID: "j1", Queue: "q", Result: []byte{0xa1, 'x'}})
	checkSaidOnce(t, "DecodeResult of a string into an int", err, hopper.ErrDecode)
	if want := `hopper: cannot decode result of job "j1" of queue "q" into int: `; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("DecodeResult of a string into an int: %v, want an error starting %q", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "args") {
		t.Errorf("DecodeResult of a string into an int: %q speaks of args", err)
	}

	// Args that do not decode, through a worker: the job goes to garbage
	// with "cannot decode args".
	s := newStore()
	got := make(chan error, 1)
	w := hopper.NewWorker(s, testConfig("decode"))
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Echo]) error { return nil })
	w.Use(func(next hopper.Handler) hopper.Handler {
		return hopper.HandlerFunc(func(ctx context.Context, rec *hopper.JobRecord) error {
			err := next.Handle(ctx, rec)
			got <- err
			return err
		})
	})
	// Echo's handler, given a string for args.
	if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: "bad-args", Queue: "decode", Kind: "echo", Args: []byte{0xa1, 'x'}}}); err != nil {
		t.Fatal(err)
	}
	startWorker(t, w)
	select {
	case err := <-got:
		if !errors.Is(err, hopper.ErrDecode) || !strings.Contains(err.Error(), "hopper: cannot decode args: ") {
			t.Errorf("a job whose args do not decode: %v, want ErrDecode saying \"hopper: cannot decode args: \"", err)
		}
	case <-ctx.Done():
		t.Fatal("the job did not run")
	}
}
