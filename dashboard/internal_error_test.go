package dashboard_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
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

// permErr is a store error that says it needs an operator, as
// redisstore's of a missing ACL right does.
type permErr struct{}

func (permErr) Error() string {
	return "NOPERM this user has no permissions to run the 'fcall' command"
}
func (permErr) StoreTemporary() bool { return false }

// deniedStore is a memstore whose job lists fail as an ACL user without
// a right does.
type deniedStore struct{ *memstore.Store }

func (deniedStore) ListJobs(context.Context, store.ListJobsOpts) (store.JobPage, error) {
	return store.JobPage{}, permErr{}
}

// A store error that will not clear by itself (a missing ACL right) does
// not tell the operator that reloading may help: the page says it needs
// an operator and names hopper check. It said "Reloading may help if it
// was passing" for a NOPERM (an outside trial).
func TestStoreErrorThatNeedsAnOperator(t *testing.T) {
	mem := memstore.New(nil)
	dashtest.Seed(t, mem)
	h := newHandler(deniedStore{mem}, &dashboard.Config{Logger: slog.New(slog.DiscardHandler)})
	r := get(t, h, "/queues/default/retry")
	if r.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", r.Code)
	}
	wantContains(t, r.Body, "the page", "needs an operator", "hopper check")
	wantLacks(t, r.Body, "the page", "Reloading may help", "NOPERM")
	// A temporary error keeps the advice.
	h = newHandler(failingStore{mem}, &dashboard.Config{Logger: slog.New(slog.DiscardHandler)})
	wantContains(t, get(t, h, "/queues/default/retry").Body, "a temporary failure's page", "Reloading may help")
}

// unreachable is a store error that says the store could not be
// reached, as redisstore's for a refused connection does.
type unreachable struct{ shardDown }

func (unreachable) StoreUnreachable() bool { return true }

// oom is a temporary store error of a store that answered (at its memory
// limit), as redisstore's ErrOOM.
type oom struct{}

func (oom) Error() string          { return "OOM command not allowed when used memory > 'maxmemory'" }
func (oom) StoreTemporary() bool   { return true }
func (oom) StoreUnreachable() bool { return false }

// redisDown is a memstore whose Redis is down: listing queues fails with
// err.
type redisDown struct {
	*memstore.Store
	err error
}

func (s redisDown) ListQueues(context.Context) ([]string, error) { return nil, s.err }

// While the store is unreachable (Redis down or restarting), the
// overview and the API answer 503 and say the store is unavailable and
// clears by itself, not "The store failed" (an outside trial), still
// without the error's text, which the log keeps under the request ID.
func TestStoreUnavailablePage(t *testing.T) {
	mem := memstore.New(nil)
	dashtest.Seed(t, mem)
	var log bytes.Buffer
	h := newHandler(redisDown{mem, unreachable{}}, &dashboard.Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for _, target := range []string{"/", "/api/stats"} {
		r := get(t, h, target)
		if r.Code != http.StatusServiceUnavailable {
			t.Fatalf("GET %s with the store unreachable: status %d, want 503", target, r.Code)
		}
		wantContains(t, r.Body, target, "unavailable", r.Header.Get("X-Request-Id"))
		wantLacks(t, r.Body, target, "The store failed", "127.0.0.1", "connection refused")
	}
	wantContains(t, log.String(), "the log", "connection refused")
	// A store that answered (at maxmemory) is not unreachable.
	h = newHandler(redisDown{mem, oom{}}, &dashboard.Config{Logger: slog.New(slog.DiscardHandler)})
	if r := get(t, h, "/"); r.Code != http.StatusInternalServerError || strings.Contains(r.Body, "unavailable") {
		t.Errorf("GET / with the store at maxmemory: status %d (want 500), a page that says unavailable: %v", r.Code, strings.Contains(r.Body, "unavailable"))
	}
}
