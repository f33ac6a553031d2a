package dashboard_test

import (
	"context"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// storeCase names a way to make a fresh, empty store.
type storeCase struct {
	name string
	new  func(t *testing.T) hopper.Store
}

// storeCases are the stores every page and action is tested on: memory and
// a real Redis (shared per test binary, one key prefix per test).
var storeCases = []storeCase{
	{"memstore", func(t *testing.T) hopper.Store { return memstore.New(nil) }},
	{"redisstore", func(t *testing.T) hopper.Store {
		rdb := redistest.Start(t).Client(t)
		return redisstore.New(rdb, &redisstore.Options{Prefix: redistest.Prefix(t)})
	}},
}

// eachStore runs fn as a parallel subtest on every store.
func eachStore(t *testing.T, fn func(t *testing.T, s hopper.Store)) {
	t.Helper()
	for _, sc := range storeCases {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			fn(t, sc.new(t))
		})
	}
}

// Args types of the fixture.

type emailArgs struct {
	To       string `msgpack:"to"`
	Subject  string `msgpack:"subject"`
	Password string `msgpack:"password"`
}

func (emailArgs) Kind() string { return "send_email" }

type reportArgs struct {
	Month string `msgpack:"month"`
}

func (reportArgs) Kind() string { return "build_report" }

// Texts the fixture plants, which tests look for.
const (
	xssText      = "<script>alert(1)</script>"
	secretText   = "hunter2-very-secret"
	garbageError = "smtp: 550 mailbox <unavailable>"
	stackText    = "goroutine 7 [running]:\nmain.send(0xc000010000)\n\t/app/send.go:42 +0x1d"
	traceparent  = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	resultText   = "report-2026-11.pdf"
)

// fixture is a store seeded with jobs in every state of queue "default",
// a ready job in "critical", a live worker and a schedule.
type fixture struct {
	store   hopper.Store
	garbage []string // ids in default/garbage, oldest first; [0] has the XSS subject
	retry   string
	done    string
	unack   string
	pending string
	ready   []string // ids in default/ready; [0] goes to alice@example.com
	traced  string   // ready job with a traceparent
	crit    string   // ready in critical
}

// seed fills s. Jobs that must leave ready are each enqueued and claimed
// before the next is enqueued, so the claim takes exactly that job.
func seed(t *testing.T, s hopper.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	c := hopper.NewClient(s, nil)
	f := &fixture{store: s}
	enqueue := func(args hopper.Args, opts *hopper.EnqueueOpts) string {
		t.Helper()
		info, err := hopper.Enqueue(ctx, c, args, opts)
		if err != nil {
			t.Fatalf("Enqueue(%v): %v", args, err)
		}
		return info.ID
	}
	claim := func(id string) *hopper.JobRecord {
		t.Helper()
		res, err := s.Claim(ctx, store.ClaimRequest{Queue: "default", Max: 1, Lease: time.Hour, WorkerID: "test-worker"})
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != id {
			t.Fatalf("Claim: got %v, %v; want job %s", res.Jobs, err, id)
		}
		return res.Jobs[0]
	}
	finish := func(j *hopper.JobRecord, req store.FinishRequest) {
		t.Helper()
		req.Queue, req.ID, req.Token = j.Queue, j.ID, j.Token
		errs, err := s.Finish(ctx, []store.FinishRequest{req})
		if err != nil || errs[0] != nil {
			t.Fatalf("Finish(%s, %v): %v %v", j.ID, req.Outcome, err, errs)
		}
	}
	fail := func(j *hopper.JobRecord, outcome hopper.Outcome, delay time.Duration) {
		finish(j, store.FinishRequest{Outcome: outcome, Delay: delay,
			Error: &hopper.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: garbageError, Stack: stackText}})
	}

	for _, subject := range []string{xssText, "Weekly digest"} {
		id := enqueue(emailArgs{To: "bob@example.com", Subject: subject, Password: secretText}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry})
		fail(claim(id), hopper.OutcomeGarbage, 0)
		f.garbage = append(f.garbage, id)
	}
	f.retry = enqueue(reportArgs{Month: "2026-10"}, nil)
	fail(claim(f.retry), hopper.OutcomeRetry, time.Hour)

	f.done = enqueue(reportArgs{Month: "2026-11"}, &hopper.EnqueueOpts{Retention: time.Hour})
	result, err := msgpack.Marshal(map[string]any{"file": resultText, "pages": 12})
	if err != nil {
		t.Fatal(err)
	}
	finish(claim(f.done), store.FinishRequest{Outcome: hopper.OutcomeAck, Result: result, Retention: time.Hour})

	f.unack = enqueue(reportArgs{Month: "2026-09"}, nil)
	running := claim(f.unack)

	f.pending = enqueue(emailArgs{To: "later@example.com", Subject: "Reminder"}, &hopper.EnqueueOpts{Delay: time.Hour})
	for _, to := range []string{"alice@example.com", "carol@example.com"} {
		f.ready = append(f.ready, enqueue(emailArgs{To: to, Subject: "Welcome"}, nil))
	}
	f.traced = enqueue(reportArgs{Month: "traced"}, &hopper.EnqueueOpts{Meta: map[string]string{"traceparent": traceparent, "api_token": secretText}})
	f.ready = append(f.ready, f.traced)
	f.crit = enqueue(reportArgs{Month: "critical"}, &hopper.EnqueueOpts{Queue: "critical"})

	err = s.Heartbeat(ctx, hopper.WorkerInfo{
		ID: "worker-1", Host: "host-a", PID: 4242, Queues: map[string]int{"default": 2, "critical": 5},
		Concurrency: 8, StartedAt: time.Now().Add(-time.Hour),
		Running: []hopper.RunningJob{{Queue: "default", ID: running.ID, Kind: running.Kind, StartedAt: time.Now()}},
	}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	err = s.RegisterSchedules(ctx, []hopper.ScheduleInfo{{
		Name: "monthly-report", Spec: "0 3 1 * *", Queue: "default", Kind: "build_report", Next: time.Now().Add(24 * time.Hour),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// discardLogger drops the dashboard's logs in tests that do not read them.
var discardLogger = slog.New(slog.DiscardHandler)

// newHandler returns the dashboard on s with opts, served at the root.
func newHandler(s hopper.Store, opts *dashboard.Options) http.Handler {
	if opts == nil {
		opts = &dashboard.Options{}
	}
	if opts.Logger == nil {
		opts.Logger = discardLogger
	}
	return dashboard.New(s, opts)
}

// response is a finished request.
type response struct {
	Code   int
	Header http.Header
	Body   string
}

// do sends a request to h as a same-origin browser would.
func do(t *testing.T, h http.Handler, method, target string, form url.Values) response {
	t.Helper()
	return serve(h, newRequest(method, target, form))
}

// doAuth is do with basic auth credentials.
func doAuth(t *testing.T, h http.Handler, method, target string, form url.Values, user, pass string) response {
	t.Helper()
	r := newRequest(method, target, form)
	r.SetBasicAuth(user, pass)
	return serve(h, r)
}

// serve runs r through h.
func serve(h http.Handler, r *http.Request) response {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return response{Code: w.Code, Header: w.Header(), Body: w.Body.String()}
}

// newRequest builds a request as a same-origin browser sends it: form
// encoded, and with Sec-Fetch-Site and Origin on a POST.
func newRequest(method, target string, form url.Values) *http.Request {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, "http://dash.test"+target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method == http.MethodPost {
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		r.Header.Set("Origin", "http://dash.test")
	}
	return r
}

func get(t *testing.T, h http.Handler, target string) response {
	t.Helper()
	return do(t, h, http.MethodGet, target, nil)
}

func post(t *testing.T, h http.Handler, target string, form url.Values) response {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return do(t, h, http.MethodPost, target, form)
}

// wantStatus fails t unless r has status code.
func wantStatus(t *testing.T, r response, code int, what string) {
	t.Helper()
	if r.Code != code {
		t.Fatalf("%s: status %d, want %d; body:\n%.2000s", what, r.Code, code, r.Body)
	}
}

// wantContains fails t unless body holds every one of subs.
func wantContains(t *testing.T, body, what string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(body, s) {
			t.Errorf("%s: body lacks %q", what, s)
		}
	}
}

// wantLacks fails t if body holds any of subs.
func wantLacks(t *testing.T, body, what string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(body, s) {
			t.Errorf("%s: body holds %q", what, s)
		}
	}
}

// jobState returns the state of a job, or "" when it is gone.
func jobState(t *testing.T, s hopper.Store, queue, id string) hopper.JobState {
	t.Helper()
	j, err := hopper.NewInspector(s).GetJob(context.Background(), queue, id)
	if err != nil {
		return ""
	}
	return j.State
}

// counts returns the counts of queue.
func counts(t *testing.T, s hopper.Store, queue string) hopper.StateCounts {
	t.Helper()
	st, err := hopper.NewInspector(s).QueueStats(context.Background(), queue)
	if err != nil {
		t.Fatal(err)
	}
	return st.Counts
}

// esc escapes s as html/template writes text.
func esc(s string) string { return template.HTMLEscapeString(s) }

// newMem returns an empty in-memory store.
func newMem() hopper.Store { return memstore.New(nil) }
