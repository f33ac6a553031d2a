package dashboard_test

import (
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
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
		return redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t)})
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

// discardLogger drops the dashboard's logs in tests that do not read them.
var discardLogger = slog.New(slog.DiscardHandler)

// newHandler returns the dashboard on s with opts, served at the root.
func newHandler(s hopper.Store, opts *dashboard.Config) http.Handler {
	if opts == nil {
		opts = &dashboard.Config{}
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

// esc escapes s as html/template writes text.
func esc(s string) string { return template.HTMLEscapeString(s) }

// newMem returns an empty in-memory store.
func newMem() hopper.Store { return memstore.New(nil) }
