package dashboard_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// beatState records a live worker process in state in s's registry.
func beatState(t *testing.T, s hopper.Store, id string, state store.WorkerState) {
	t.Helper()
	err := s.Heartbeat(context.Background(), store.WorkerInfo{ID: id, Host: "h1", PID: 7, Queues: map[string]int{"default": 1},
		Concurrency: 2, StartedAt: time.Now(), State: state}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
}

// The workers page offers Quiet and Stop per live worker; each asks first
// (without JavaScript too), then leaves the command for the worker. The
// state each worker reports shows.
func TestWorkerQuietStopFromPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		h := newHandler(s, nil)
		beatState(t, s, "w-1", store.WorkerStateRunning)
		beatState(t, s, "w-2", store.WorkerStateQuiet)
		beatState(t, s, "w-3", store.WorkerStateStopping)
		page := get(t, h, "/workers")
		wantContains(t, page.Body, "workers page", `action="/workers/w-1/quiet"`, `action="/workers/w-1/stop"`,
			`data-worker-state="running"`, `data-worker-state="quiet"`, `data-worker-state="stopping"`, `action="/workers/w-2/stop"`)
		wantLacks(t, page.Body, "workers page", `action="/workers/w-2/quiet"`, `action="/workers/w-3/stop"`, `id="workers-no-control"`)

		ctl, _ := store.As[store.WorkerControl](s)
		r := postAsked(t, h, "/workers/w-1/quiet", nil, "Quiet worker w-1?")
		wantRedirect(t, r, "/workers?flash=worker-quiet", "quiet")
		if got, err := ctl.TakeWorkerCommand(context.Background(), "w-1"); err != nil || got != store.WorkerQuiet {
			t.Fatalf("command left for w-1 = %q, %v; want quiet", got, err)
		}
		r = postAsked(t, h, "/workers/w-2/stop", nil, "Stop worker w-2?")
		wantRedirect(t, r, "/workers?flash=worker-stop", "stop")
		if got, _ := ctl.TakeWorkerCommand(context.Background(), "w-2"); got != store.WorkerStop {
			t.Fatalf("command left for w-2 = %q; want stop", got)
		}
		// Asked but not confirmed: nothing is sent.
		wantStatus(t, post(t, h, "/workers/w-1/stop", nil), http.StatusOK, "unconfirmed stop")
		if got, _ := ctl.TakeWorkerCommand(context.Background(), "w-1"); got != "" {
			t.Fatalf("an unconfirmed stop left %q", got)
		}
		wantStatus(t, post(t, h, "/workers/gone/stop", nil), http.StatusNotFound, "unknown worker")
		wantStatus(t, post(t, h, "/workers/w-1/reboot", nil), http.StatusNotFound, "unknown action")
	})
}

// On a store that carries no commands the page offers no buttons and
// says why; a post answers 501.
func TestWorkerControlUnsupported(t *testing.T) {
	m := memstore.New(nil)
	s := adminOnly{m, m}
	beatState(t, s, "w-1", "")
	h := newHandler(s, nil)
	page := get(t, h, "/workers")
	wantContains(t, page.Body, "workers page", `id="workers-no-control"`, "this store carries no commands to workers")
	wantLacks(t, page.Body, "workers page", `action="/workers/w-1/quiet"`, `action="/workers/w-1/stop"`)
	wantStatus(t, post(t, h, "/workers/w-1/stop", nil), http.StatusNotImplemented, "stop on a store without control")
}
