package main

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
)

func TestDemoServesDashboard(t *testing.T) {
	c := &cli{}
	out, stop := c.start(t, "dashboard: http://", "demo", "--addr", "127.0.0.1:0", "--rate", "200")
	u := dashboardURL(t, out())
	wantOut(t, out(), "demo", "hopper demo: 200 jobs/s")
	code, body := fetch(t, "GET", u, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "hopper demo") {
		t.Errorf("GET %s: %d\n%.300s", u, code, body)
	}
	// The demo's queues and worker show up once jobs flow: poll the stats.
	testutil.EventuallyTrue(t, 30*time.Second, "the demo's queues on the dashboard", func() bool {
		_, body := fetch(t, "GET", u+"api/stats", nil, nil)
		return strings.Contains(body, `"name":"critical"`) && strings.Contains(body, `"name":"low"`)
	})
	testutil.EventuallyTrue(t, 30*time.Second, "the demo's worker on the dashboard", func() bool {
		_, body := fetch(t, "GET", u+"workers", nil, nil)
		return strings.Contains(body, "1 live process")
	})
	_, body = fetch(t, "GET", u+"schedules", nil, nil)
	wantOut(t, body, "periodic jobs page", "quarter-minute-report", "@every 15s")
	r := stop()
	wantCode(t, r, 0, "demo")
	wantOut(t, r.stdout, "demo", "enqueued", "done", "stopped")
}

func TestDemoPortInUseFallsBack(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	c := &cli{}
	out, stop := c.start(t, "dashboard: http://", "demo", "--addr", busy.Addr().String())
	u := dashboardURL(t, out())
	if strings.Contains(u, busy.Addr().String()) {
		t.Errorf("the demo printed the busy address %s", u)
	}
	if code, _ := fetch(t, "GET", u, nil, nil); code != http.StatusOK {
		t.Errorf("GET %s: %d", u, code)
	}
	wantCode(t, stop(), 0, "demo")
}

func TestDemoDuration(t *testing.T) {
	c := &cli{}
	r := c.run(t, "demo", "--duration", "300ms", "--addr", "")
	wantCode(t, r, 0, "demo --duration")
	if !regexp.MustCompile(`enqueued +\d+ .* done +\d+`).MatchString(r.stdout) || !strings.Contains(r.stdout, "stopped") {
		t.Errorf("demo output:\n%s", r.stdout)
	}
	wantBadUsage(t, c.run(t, "demo", "--addr", "0.0.0.0:0", "--duration", "1s"), "demo on a public address", `hopper demo: --addr "0.0.0.0:0": the demo serves its dashboard on loopback only`)
}

// TestDemoNegativeDuration: a negative --duration is refused as bad usage
// (exit 2), as a negative --workflow-every is; the demo ran until
// interrupted. (The
// context is done already: run before the fix, the demo stops at once
// instead of running for ever.)
func TestDemoNegativeDuration(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr syncBuffer
	code := run(ctx, &app{stdout: &stdout, stderr: &stderr}, []string{"demo", "--duration", "-1s", "--addr", ""})
	if code != 2 || !strings.Contains(stderr.String(), "hopper demo: --duration must not be negative") {
		t.Errorf("demo --duration -1s: exit code %d\n%s%s", code, stdout.String(), stderr.String())
	}
}
