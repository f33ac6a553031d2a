package hopper_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// panicText runs f and returns what it panicked with, as text; "" when it
// did not panic.
func panicText(f func()) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// TestNilHandlerPanicsAtRegistration: registering a nil handler (or
// middleware) panics at once with a clear message, as an empty or
// duplicate kind does, and registers nothing: it was accepted, and every
// job of the kind then panicked in the worker and burnt its retries.
func TestNilHandlerPanicsAtRegistration(t *testing.T) {
	cases := []struct {
		name     string
		register func(w *hopper.Worker, c *hopper.Client)
		want     string
	}{
		{"Handle", func(w *hopper.Worker, _ *hopper.Client) { hopper.Handle[Echo](w, nil) },
			`hopper: Handle with a nil handler func for kind "echo"`},
		{"HandleKind of a nil Handler", func(w *hopper.Worker, _ *hopper.Client) { w.HandleKind("echo", nil) },
			`hopper: HandleKind("echo") with a nil Handler`},
		{"HandleKind of a nil HandlerFunc", func(w *hopper.Worker, _ *hopper.Client) { w.HandleKind("echo", hopper.HandlerFunc(nil)) },
			`hopper: HandleKind("echo") with a nil Handler`},
		{"Worker.Use", func(w *hopper.Worker, _ *hopper.Client) {
			w.Use(func(h hopper.Handler) hopper.Handler { return h }, nil)
		},
			"hopper: Worker.Use with a nil Middleware (argument 1)"},
		{"Client.Use", func(_ *hopper.Worker, c *hopper.Client) { c.Use(nil) },
			"hopper: Client.Use with a nil EnqueueMiddleware (argument 0)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore()
			w := hopper.NewWorker(st, testConfig("default"))
			c := hopper.NewClient(st, nil)
			if got := panicText(func() { tc.register(w, c) }); !strings.Contains(got, tc.want) {
				t.Fatalf("panicked with %q, want %q", got, tc.want)
			}
			// Nothing was registered: the kind takes a handler, and the
			// worker and the client still work.
			done := make(chan struct{}, 1)
			hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Echo]) error {
				done <- struct{}{}
				return nil
			})
			if _, err := hopper.Enqueue(t.Context(), c, Echo{}, nil); err != nil {
				t.Fatal(err)
			}
			if n, err := w.Drain(t.Context()); err != nil || n != 1 {
				t.Fatalf("Drain: %d attempts, %v; want 1, nil", n, err)
			}
			<-done
		})
	}
}
