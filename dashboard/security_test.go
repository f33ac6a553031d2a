package dashboard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	s := newMem()
	f := dashtest.Seed(t, s)
	h := newHandler(s, &dashboard.Config{BasicAuth: &dashboard.BasicAuth{User: "u", Password: "p"}})
	check := func(what string, r response) {
		t.Helper()
		csp := r.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", what, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: Content-Security-Policy allows inline or eval: %q", what, csp)
		}
		if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", what, got)
		}
		if got := r.Header.Get("X-Frame-Options"); got != "DENY" {
			t.Errorf("%s: X-Frame-Options %q", what, got)
		}
	}
	check("401", get(t, h, "/"))
	for _, p := range []string{"/", "/queues/default/garbage", "/jobs/default/" + f.Garbage[0], "/workers", "/schedules", "/api/stats", "/static/app.js", "/nope"} {
		r := doAuth(t, h, http.MethodGet, p, nil, "u", "p")
		check(p, r)
		if !strings.HasPrefix(p, "/static/") && r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", p, r.Header.Get("Cache-Control"))
		}
	}
	check("action", doAuth(t, h, http.MethodPost, "/queues/default/pause", url.Values{}, "u", "p"))
}

// TestNoInlineScript checks that no page carries a script the CSP would
// block: every <script> has a src, and no element has an on* handler.
func TestNoInlineScript(t *testing.T) {
	s := newMem()
	f := dashtest.Seed(t, s)
	h := newHandler(s, nil)
	for _, p := range []string{"/", "/queues/default/garbage", "/jobs/default/" + f.Garbage[0], "/workers", "/schedules", "/queues/default/garbage/confirm?action=retry", "/nope"} {
		body := get(t, h, p).Body
		for _, tag := range strings.Split(body, "<script")[1:] {
			if !strings.HasPrefix(tag, " src=") {
				t.Errorf("%s: inline script: <script%.60s", p, tag)
			}
		}
		for _, attr := range []string{" onclick=", " onload=", " onerror=", " onsubmit=", " style=", "javascript:"} {
			if strings.Contains(body, attr) {
				t.Errorf("%s: page holds %q", p, attr)
			}
		}
	}
}

func TestUserStringsEscaped(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		for _, p := range []string{"/queues/default/garbage", "/jobs/default/" + f.Garbage[0], "/api/jobs/default/" + f.Garbage[0], "/api/queues/default/garbage"} {
			r := get(t, h, p)
			wantStatus(t, r, http.StatusOK, p)
			wantLacks(t, r.Body, p, dashtest.XSSText, "<unavailable>")
		}
		// The text is there, escaped.
		wantContains(t, get(t, h, "/jobs/default/"+f.Garbage[0]).Body, "job page", esc(dashtest.XSSText), esc(dashtest.GarbageError))
		// Kinds are user strings too.
		evil := `<img src=x onerror=alert(2)>`
		if _, err := s.Enqueue(t.Context(), []*store.NewJob{{ID: "evil-kind", Queue: "default", Kind: evil}}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"/queues/default/ready", "/jobs/default/evil-kind"} {
			r := get(t, h, p)
			wantStatus(t, r, http.StatusOK, p)
			wantLacks(t, r.Body, p, evil)
			wantContains(t, r.Body, p, esc(evil))
		}
	})
}

func TestCrossOriginActionRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		form := url.Values{"id": {f.Garbage[0]}}
		for _, c := range []struct {
			name   string
			header map[string]string
		}{
			{"Sec-Fetch-Site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}},
			{"Sec-Fetch-Site same-site", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://other.dash.test"}},
			{"Origin only", map[string]string{"Origin": "https://evil.example"}},
		} {
			for _, p := range actionPaths(f) {
				r := newRequest(http.MethodPost, p, form)
				r.Header.Del("Sec-Fetch-Site")
				r.Header.Del("Origin")
				for k, v := range c.header {
					r.Header.Set(k, v)
				}
				resp := serve(h, r)
				if resp.Code != http.StatusForbidden {
					t.Errorf("%s POST %s: status %d, want 403", c.name, p, resp.Code)
				}
			}
		}
		if c := dashtest.Counts(t, s, "default"); c.Garbage != 2 || c.Ready != 3 {
			t.Errorf("cross-origin posts changed the store: %+v", c)
		}
		st, _ := hopper.NewInspector(s).GetQueueStats(t.Context(), "default")
		if st.Config.Paused {
			t.Error("a cross-origin post paused the queue")
		}
		// The same request from the dashboard's own origin goes through.
		wantStatus(t, post(t, h, "/queues/default/garbage/retry", form), http.StatusSeeOther, "same-origin retry")
	})
}

func TestTrustedOrigin(t *testing.T) {
	s := newMem()
	f := dashtest.Seed(t, s)
	h := newHandler(s, &dashboard.Config{TrustedOrigins: []string{"https://ops.example.com"}})
	r := newRequest(http.MethodPost, "/queues/default/garbage/retry", url.Values{"id": {f.Garbage[0]}})
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.Header.Set("Origin", "https://ops.example.com")
	wantStatus(t, serve(h, r), http.StatusSeeOther, "post from a trusted origin")
}

func TestReadOnlyRefusesEveryAction(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, &dashboard.Config{ReadOnly: true})
		for _, p := range actionPaths(f) {
			for _, form := range []url.Values{{"id": {f.Garbage[0]}}, {"all": {"1"}, "confirm": {"1"}}} {
				r := post(t, h, p, form)
				if r.Code != http.StatusForbidden {
					t.Errorf("read-only POST %s %v: status %d, want 403", p, form, r.Code)
				}
			}
			if r := get(t, h, p); r.Code != http.StatusMethodNotAllowed {
				t.Errorf("read-only GET %s: status %d, want 405", p, r.Code)
			}
		}
		wantStatus(t, get(t, h, "/queues/default/garbage/confirm?action=delete"), http.StatusForbidden, "read-only confirm page")
		c := dashtest.Counts(t, s, "default")
		if c.Garbage != 2 || c.Ready != 3 || c.Pending != 1 {
			t.Errorf("read-only dashboard changed the store: %+v", c)
		}
		st, _ := hopper.NewInspector(s).GetQueueStats(t.Context(), "default")
		if st.Config.Paused {
			t.Error("read-only dashboard paused the queue")
		}
		// Pages still work and offer no actions.
		for _, p := range []string{"/", "/queues/default/garbage", "/jobs/default/" + f.Garbage[0], "/jobs/default/" + f.Ready[0]} {
			r := get(t, h, p)
			wantStatus(t, r, http.StatusOK, p)
			wantContains(t, r.Body, p, "read-only")
			wantLacks(t, r.Body, p, `method="post"`, "Delete selected", "Requeue all")
		}
	})
}

func TestBasicAuth(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, &dashboard.Config{Title: "Ops", BasicAuth: &dashboard.BasicAuth{User: "admin", Password: "s3cret"}})
		paths := []string{"/", "/queues/default/garbage", "/jobs/default/" + f.Garbage[0], "/workers", "/schedules", "/api/stats", "/api/jobs/default/" + f.Garbage[0], "/static/app.js"}
		for i, p := range paths {
			r := get(t, h, p)
			wantStatus(t, r, http.StatusUnauthorized, "no credentials "+p)
			if got := r.Header.Get("WWW-Authenticate"); got != `Basic realm="Ops", charset="UTF-8"` {
				t.Errorf("%s: WWW-Authenticate %q", p, got)
			}
			wantLacks(t, r.Body, p, f.Garbage[0], "bob@example.com")
			// From an address of its own per path: failed logins are limited
			// per address (TestLoginRateLimit).
			from := fmt.Sprintf("198.51.100.%d:4000", i+1)
			for _, cred := range [][2]string{{"admin", "wrong"}, {"wrong", "s3cret"}, {"admin", ""}, {"", ""}, {"admin", "s3cret "}, {"Admin", "s3cret"}} {
				wantStatus(t, authFrom(h, p, from, cred[0], cred[1]), http.StatusUnauthorized, "wrong credentials "+p)
			}
			wantStatus(t, doAuth(t, h, http.MethodGet, p, nil, "admin", "s3cret"), http.StatusOK, "right credentials "+p)
		}
		for _, p := range actionPaths(f) {
			wantStatus(t, post(t, h, p, url.Values{"id": {f.Garbage[0]}}), http.StatusUnauthorized, "action without credentials "+p)
		}
		if c := dashtest.Counts(t, s, "default"); c.Garbage != 2 || c.Ready != 3 {
			t.Errorf("unauthenticated actions changed the store: %+v", c)
		}
	})
}

func TestAuthHook(t *testing.T) {
	s := newMem()
	dashtest.Seed(t, s)
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Token") != "let-me-in" {
				http.Error(w, "go away", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	h := newHandler(s, &dashboard.Config{Auth: auth})
	for _, p := range []string{"/", "/api/stats", "/static/app.css"} {
		wantStatus(t, get(t, h, p), http.StatusForbidden, "hook refuses "+p)
		r := newRequest(http.MethodGet, p, nil)
		r.Header.Set("X-Token", "let-me-in")
		wantStatus(t, serve(h, r), http.StatusOK, "hook lets in "+p)
	}
	wantStatus(t, post(t, h, "/queues/default/pause", nil), http.StatusForbidden, "hook refuses an action")
	// Security headers are set even on the hook's own answers.
	if r := get(t, h, "/"); r.Header.Get("Content-Security-Policy") == "" {
		t.Error("no Content-Security-Policy on the auth hook's refusal")
	}
}

func TestAllowedHosts(t *testing.T) {
	h := newHandler(newMem(), &dashboard.Config{AllowedHosts: []string{"localhost", "127.0.0.1", "::1"}})
	for host, want := range map[string]int{
		"localhost:8080": http.StatusOK, "127.0.0.1:9": http.StatusOK, "[::1]:8080": http.StatusOK, "LOCALHOST": http.StatusOK,
		"evil.example": http.StatusMisdirectedRequest, "evil.example:8080": http.StatusMisdirectedRequest, "127.0.0.2": http.StatusMisdirectedRequest,
	} {
		r := newRequest(http.MethodGet, "/", nil)
		r.Host = host
		if got := serve(h, r).Code; got != want {
			t.Errorf("Host %q: status %d, want %d", host, got, want)
		}
	}
}

func TestRedaction(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		// Nothing that leaves the server shows the secret: pages, JSON, search.
		for _, p := range []string{
			"/queues/default/garbage", "/jobs/default/" + f.Garbage[0], "/jobs/default/" + f.Traced,
			"/api/jobs/default/" + f.Garbage[0], "/api/jobs/default/" + f.Traced, "/api/queues/default/garbage",
		} {
			r := get(t, h, p)
			wantStatus(t, r, http.StatusOK, p)
			wantLacks(t, r.Body, p, dashtest.SecretText)
		}
		// Searching for the secret finds nothing, though two jobs hold it.
		r := get(t, h, "/queues/default/garbage?args="+url.QueryEscape(dashtest.SecretText))
		wantContains(t, r.Body, "search for a secret", "No match among jobs")
		wantLacks(t, r.Body, "search for a secret", f.Garbage[0], f.Garbage[1])
		var page struct{ Jobs []any }
		if err := json.Unmarshal([]byte(get(t, h, "/api/queues/default/garbage?args=hunter2").Body), &page); err != nil || len(page.Jobs) != 0 {
			t.Errorf("JSON search for a secret: %d jobs, %v; want none", len(page.Jobs), err)
		}

		// NoRedact shows it, and the search finds it.
		h = newHandler(s, &dashboard.Config{Redact: dashboard.NoRedact})
		wantContains(t, get(t, h, "/jobs/default/"+f.Garbage[0]).Body, "NoRedact", dashtest.SecretText)
		wantContains(t, get(t, h, "/queues/default/garbage?args=hunter2").Body, "NoRedact search", f.Garbage[0], f.Garbage[1])

		// A custom hook sees the kind and the decoded args.
		h = newHandler(s, &dashboard.Config{Redact: func(kind string, v any) any {
			if m, ok := v.(map[string]any); ok && kind == "send_email" {
				m["to"] = "someone"
			}
			return v
		}})
		body := get(t, h, "/jobs/default/"+f.Garbage[0]).Body
		wantContains(t, body, "custom redact", esc(`"to": "someone"`), dashtest.SecretText)
		wantLacks(t, body, "custom redact", "bob@example.com")

		// A hook that panics hides everything rather than nothing.
		h = newHandler(s, &dashboard.Config{Redact: func(string, any) any { panic("boom") }})
		r = get(t, h, "/jobs/default/"+f.Garbage[0])
		wantStatus(t, r, http.StatusOK, "panicking redact")
		wantLacks(t, r.Body, "panicking redact", dashtest.SecretText, "bob@example.com")
	})
}

func TestNewPanicsOnMisuse(t *testing.T) {
	for name, fn := range map[string]func(){
		"nil store":           func() { dashboard.New(nil, nil) },
		"relative prefix":     func() { dashboard.New(newMem(), &dashboard.Config{Prefix: "admin"}) },
		"prefix with a quote": func() { dashboard.New(newMem(), &dashboard.Config{Prefix: `/a"b`}) },
		"empty password":      func() { dashboard.New(newMem(), &dashboard.Config{BasicAuth: &dashboard.BasicAuth{User: "u"}}) },
		"origin without host": func() { dashboard.New(newMem(), &dashboard.Config{TrustedOrigins: []string{"ops.example.com"}}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				p := recover()
				err, _ := p.(error)
				if p == nil || !strings.Contains(fmt.Sprint(p), "dashboard") || (name != "nil store" && !errors.Is(err, hopper.ErrInvalidConfig)) {
					t.Errorf("panic %v, want one naming the dashboard (an error wrapping ErrInvalidConfig for a bad option)", p)
				}
			}()
			fn()
		})
	}
}

// authFrom GETs target with basic auth credentials from client address addr.
func authFrom(h http.Handler, target, addr, user, pass string) response {
	r := newRequest(http.MethodGet, target, nil)
	r.RemoteAddr = addr
	r.SetBasicAuth(user, pass)
	return serve(h, r)
}

// Failed logins are limited per address: ten, then one every 6 s; an
// address over its allowance gets 429 whatever it sends, others are not
// affected, and asking without credentials costs nothing.
func TestLoginRateLimit(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	h := newHandler(newMem(), &dashboard.Config{Now: func() time.Time { return now },
		BasicAuth: &dashboard.BasicAuth{User: "admin", Password: "s3cret"}})
	const guesser, other = "203.0.113.7:5000", "203.0.113.8:5000"
	for i := range 10 {
		wantStatus(t, authFrom(h, "/", guesser, "admin", fmt.Sprint("guess", i)), http.StatusUnauthorized, fmt.Sprint("guess ", i+1))
	}
	r := authFrom(h, "/", guesser, "admin", "s3cret")
	wantStatus(t, r, http.StatusTooManyRequests, "the right password after ten wrong ones")
	if got := r.Header.Get("Retry-After"); got != "6" {
		t.Errorf("Retry-After %q, want 6", got)
	}
	wantStatus(t, authFrom(h, "/", other, "admin", "s3cret"), http.StatusOK, "another address")
	noCred := newRequest(http.MethodGet, "/", nil)
	noCred.RemoteAddr = guesser
	wantStatus(t, serve(h, noCred), http.StatusUnauthorized, "no credentials from the limited address")

	now = now.Add(6 * time.Second) // one more try
	wantStatus(t, authFrom(h, "/", guesser, "admin", "guess again"), http.StatusUnauthorized, "a try after 6 s")
	wantStatus(t, authFrom(h, "/", guesser, "admin", "s3cret"), http.StatusTooManyRequests, "a second try within 6 s")
	now = now.Add(6 * time.Second)
	wantStatus(t, authFrom(h, "/", guesser, "admin", "s3cret"), http.StatusOK, "the right password 6 s later")
}
