package main

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

// openEventStream opens u (an /api/events URL) and reads the stream's
// first line, as a queue or job page does through EventSource.
func openEventStream(t *testing.T, u string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ": hopper events") {
		t.Fatalf("GET %s: first line %q, %v", u, line, err)
	}
}

// stopPromptly stops a command started with cli.start and fails t unless
// it returned 0 within 2 s.
func stopPromptly(t *testing.T, stop func() result, what string) {
	t.Helper()
	start := time.Now()
	r := stop()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("%s took %s to stop with an event stream open, want at most 2s", what, took.Round(time.Millisecond))
	}
	wantCode(t, r, 0, what)
}

// TestInterruptWithEventStreamOpen: an interrupt stops hopper dashboard
// and hopper demo at once while a page's event stream (/api/events) is
// open; they waited the five seconds of the shutdown's grace for it and
// exited 1 ("context deadline exceeded").
func TestInterruptWithEventStreamOpen(t *testing.T) {
	t.Run("dashboard", func(t *testing.T) {
		eachCLI(t, func(t *testing.T, c *cli) {
			seed(t, c.store)
			out, stop := c.start(t, "hopper dashboard: http://", "dashboard", "--addr", "127.0.0.1:0")
			openEventStream(t, dashboardURL(t, out())+"api/events?queue=default")
			stopPromptly(t, stop, "dashboard")
		})
	})
	t.Run("demo", func(t *testing.T) {
		c := &cli{}
		out, stop := c.start(t, "dashboard: http://", "demo", "--addr", "127.0.0.1:0")
		openEventStream(t, dashboardURL(t, out())+"api/events?queue=default")
		stopPromptly(t, stop, "demo")
	})
}
