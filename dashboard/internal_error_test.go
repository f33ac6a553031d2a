package dashboard_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// scriptErr is what a failing Redis script answers: internals an operator
// must not be shown, and the log must keep.
const scriptErr = "ERR Wrong number of args calling Redis command from script script: 5f2c, on @user_function:79"

// failingStore is a memstore whose job reads fail as a broken script does.
type failingStore struct{ *memstore.Store }

func (failingStore) ListJobs(context.Context, store.ListJobsOpts) (store.JobPage, error) {
	return store.JobPage{}, errors.New(scriptErr)
}

func (failingStore) GetJob(context.Context, string, string) (*hopper.JobRecord, error) {
	return nil, errors.New(scriptErr)
}

func (failingStore) SearchJobs(context.Context, store.SearchJobsOpts) (store.SearchPage, error) {
	return store.SearchPage{}, errors.New(scriptErr)
}

func (failingStore) ReadEvents(context.Context, map[string]string, int, time.Duration) ([]hopper.Event, map[string]string, []string, error) {
	return nil, nil, nil, errors.New(scriptErr)
}

var requestIDRE = regexp.MustCompile(`[0-9a-f]{16}`)

// A store's error never reaches a page or the API: the operator reads what
// failed, in words, and a request ID; the log has the error under it.
func TestStoreErrorsShowARequestIDNotTheError(t *testing.T) {
	mem := memstore.New(nil)
	f := dashtest.Seed(t, mem)
	var log bytes.Buffer
	h := newHandler(failingStore{mem}, &dashboard.Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for _, c := range []struct {
		method, target, words string
	}{
		{http.MethodGet, "/queues/default/retry", "Could not finish listing jobs (queue default, state retry)."},
		{http.MethodGet, "/queues/sms/retry?args=alice", "Could not finish searching jobs (queue sms, state retry)."},
		{http.MethodGet, "/jobs/default/" + f.Retry, "Could not finish reading the job (queue default, ID " + f.Retry + ")."},
		{http.MethodPost, "/jobs/default/" + f.Retry + "/delete", "Could not finish the action (queue default, ID " + f.Retry + ")."},
		{http.MethodGet, "/api/queues/default/retry", "Could not finish listing jobs (queue default, state retry)."},
		{http.MethodGet, "/api/jobs/default/" + f.Retry, "Could not finish reading the job (queue default, ID " + f.Retry + ")."},
		{http.MethodGet, "/api/events?queue=default", "Could not finish reading events."},
	} {
		log.Reset()
		var r response
		if c.method == http.MethodPost {
			r = post(t, h, c.target, nil)
		} else {
			r = get(t, h, c.target)
		}
		what := c.method + " " + c.target
		if r.Code != http.StatusInternalServerError && r.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: status %d, want 500 or 503", what, r.Code)
		}
		wantLacks(t, r.Body, what, "Wrong number of args", "@user_function", "ERR ")
		id := r.Header.Get("X-Request-Id")
		if !requestIDRE.MatchString(id) {
			t.Fatalf("%s: request ID %q", what, id)
		}
		wantContains(t, r.Body, what, id, esc(c.words))
		wantContains(t, log.String(), what+" log", "request_id="+id, "Wrong number of args calling Redis command from script")
	}
}
