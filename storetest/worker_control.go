package storetest

import (
	"errors"
	"testing"

	"github.com/hopperq/hopper/store"
)

// controlFunc is a WorkerControl case: the store and its
// store.WorkerControl.
type controlFunc = func(t *testing.T, s store.Store, c store.WorkerControl)

func workerControlCases() []testCase[controlFunc] {
	return []testCase[controlFunc]{
		{name: "SendTake", fn: testControlSendTake},
		{name: "Invalid", fn: testControlInvalid},
		{name: "StateListed", fn: testControlStateListed},
	}
}

func take(t *testing.T, c store.WorkerControl, id string) store.WorkerCommand {
	t.Helper()
	cmd, err := c.TakeWorkerCommand(t.Context(), id)
	if err != nil {
		t.Fatalf("TakeWorkerCommand(%q): %v", id, err)
	}
	return cmd
}

// testControlSendTake: a command is taken once; a later one replaces one
// not yet taken; commands are per worker.
func testControlSendTake(t *testing.T, _ store.Store, c store.WorkerControl) {
	a, b := newQueue(t), newQueue(t)
	if got := take(t, c, a); got != "" {
		t.Fatalf("with nothing sent, took %q", got)
	}
	if err := c.SendWorkerCommand(t.Context(), a, store.WorkerQuiet); err != nil {
		t.Fatal(err)
	}
	if err := c.SendWorkerCommand(t.Context(), a, store.WorkerStop); err != nil {
		t.Fatal(err)
	}
	if err := c.SendWorkerCommand(t.Context(), b, store.WorkerQuiet); err != nil {
		t.Fatal(err)
	}
	if got := take(t, c, a); got != store.WorkerStop {
		t.Fatalf("took %q for %s, want the later command stop", got, a)
	}
	if got := take(t, c, a); got != "" {
		t.Fatalf("took %q a second time", got)
	}
	if got := take(t, c, b); got != store.WorkerQuiet {
		t.Fatalf("took %q for %s, want quiet", got, b)
	}
}

// testControlInvalid: an empty ID or unknown command is refused with
// ErrInvalidConfig and leaves nothing.
func testControlInvalid(t *testing.T, _ store.Store, c store.WorkerControl) {
	id := newQueue(t)
	for _, tc := range []struct {
		id  string
		cmd store.WorkerCommand
	}{{"", store.WorkerStop}, {id, "restart"}, {id, ""}} {
		if err := c.SendWorkerCommand(t.Context(), tc.id, tc.cmd); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("SendWorkerCommand(%q, %q) = %v, want ErrInvalidConfig", tc.id, tc.cmd, err)
		}
	}
	if got := take(t, c, id); got != "" {
		t.Fatalf("a refused command left %q", got)
	}
}

// testControlStateListed: the state a heartbeat reports is listed.
func testControlStateListed(t *testing.T, s store.Store, _ store.WorkerControl) {
	adm, ok := store.As[store.Admin](s)
	if !ok {
		t.Skip("no store.Admin to list workers")
	}
	for _, st := range []store.WorkerState{store.WorkerStateQuiet, store.WorkerStateStopping, store.WorkerStateRunning} {
		w := worker(t, newQueue(t))
		w.State = st
		heartbeat(t, s, w, long)
		ws, err := adm.ListWorkers(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, got := range ws {
			if got.ID == w.ID {
				found = true
				if got.State != st {
					t.Errorf("worker with state %q listed as %q", st, got.State)
				}
			}
		}
		if !found {
			t.Errorf("worker %s not listed", w.ID)
		}
	}
}
