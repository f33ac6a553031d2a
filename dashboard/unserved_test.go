package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// TestUnservedQueueHint: a running workflow whose tasks wait in a queue
// no live worker serves says so, on its page and on the waiting task's
// job page; once a worker serves the queue, the hint goes.
func TestUnservedQueueHint(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)
		const hint = "No worker serves queue"
		waiting := store.TaskJobID(f.Running, "chunk-0")
		if f.RunningTask == "chunk-0" {
			waiting = store.TaskJobID(f.Running, "chunk-1")
		}

		r := get(t, h, "/workflows/"+f.Running)
		wantStatus(t, r, http.StatusOK, "running workflow")
		wantContains(t, r.Body, "running workflow, no worker", hint, `data-unserved="fan"`)
		r = get(t, h, "/jobs/fan/"+waiting)
		wantStatus(t, r, http.StatusOK, "waiting task's job")
		wantContains(t, r.Body, "waiting task's job, no worker", hint, `data-unserved="fan"`)
		// An ended workflow waits for nothing.
		if r := get(t, h, "/workflows/"+f.Succeeded); strings.Contains(r.Body, hint) {
			t.Error("a succeeded workflow says no worker serves its queue")
		}
		// A worker of other queues does not serve it.
		beat(t, s, "w-other", map[string]int{"etl": 1})
		wantContains(t, get(t, h, "/workflows/"+f.Running).Body, "worker of another queue", `data-unserved="fan"`)

		beat(t, s, "w-fan", map[string]int{"fan": 1})
		for _, path := range []string{"/workflows/" + f.Running, "/jobs/fan/" + waiting} {
			if r := get(t, h, path); strings.Contains(r.Body, hint) {
				t.Errorf("%s says no worker serves the queue while one does", path)
			}
		}
	})
}

// beat registers a live worker serving queues.
func beat(t *testing.T, s hopper.Store, id string, queues map[string]int) {
	t.Helper()
	if err := s.Heartbeat(t.Context(), hopper.WorkerInfo{ID: id, Host: "h", PID: 1, Queues: queues, Concurrency: 1, StartedAt: time.Now()}, time.Hour); err != nil {
		t.Fatal(err)
	}
}
