package dashboard_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestPartitionNameOfUnpartitionedQueue: on Redis, a URL that names a
// partition the store does not have ("default~1" of a queue that is not
// partitioned, "wide~5" of one with two partitions) is a bad name, answered
// as other bad names are (404 on a page or a route's queue, 400 on a
// query's), never a store failure. Every one of these answered 500 (503 for
// events) and logged an ERROR.
func TestPartitionNameOfUnpartitionedQueue(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Partitions: map[string]int{"wide": 2}})
	dashtest.Seed(t, s)
	var log bytes.Buffer
	h := newHandler(s, &dashboard.Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})

	for _, c := range []struct {
		method, target string
		code           int
		says           string
	}{
		{"GET", "/queues/default~1/ready", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/queues/ghost~3/ready", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/queues/wide~5/ready", http.StatusNotFound, "has 2 partitions, wide~0 to wide~1"},
		{"GET", "/queues/default~1", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/queues/default~1/errors", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/queues/default~1/garbage/confirm?action=delete", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/jobs/default~1/x", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/api/queues/default~1/ready", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/api/jobs/default~1/x", http.StatusNotFound, "which is not partitioned"},
		{"GET", "/api/stats?queue=default~1", http.StatusBadRequest, "which is not partitioned"},
		{"GET", "/api/events?queue=default~1", http.StatusBadRequest, "which is not partitioned"},
		{"POST", "/queues/default~1/pause", http.StatusNotFound, "which is not partitioned"},
		{"POST", "/queues/default~1/pause?confirm=1", http.StatusNotFound, "which is not partitioned"},
		{"POST", "/queues/default~1/resume", http.StatusNotFound, "which is not partitioned"},
		{"POST", "/queues/default~1/limits?confirm=1", http.StatusNotFound, "which is not partitioned"},
		{"POST", "/queues/default~1/ready/delete", http.StatusNotFound, "which is not partitioned"},
		{"POST", "/jobs/default~1/x/retry", http.StatusNotFound, "which is not partitioned"},
	} {
		var r response
		if c.method == "POST" {
			target, query, _ := strings.Cut(c.target, "?")
			form, _ := url.ParseQuery(query)
			r = post(t, h, target, form)
		} else {
			r = get(t, h, c.target)
		}
		if r.Code != c.code || !strings.Contains(r.Body, c.says) {
			t.Errorf("%s %s: status %d, want %d saying %q; body:\n%.600s", c.method, c.target, r.Code, c.code, c.says, r.Body)
		}
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("bad queue names were logged as failures:\n%s", log.String())
	}
	// A partition that exists is a queue like any other.
	wantStatus(t, get(t, h, "/queues/wide~1/ready"), http.StatusOK, "a partition that exists")
}

// TestPartitionSettingsOnTheQueue: a partition's page offers no pause or
// limits of its own but links to its queue, whose settings every
// partition shares; a POST that would set them on the partition is
// refused saying where to set them (it paused that partition alone, which
// the queue's page then did not show), and pausing the queue pauses them
// all.
func TestPartitionSettingsOnTheQueue(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Partitions: map[string]int{"wide": 2}})
	dashtest.Seed(t, s)
	h := newHandler(s, nil)

	// A worker serves the queue by its name, and so its partitions.
	if err := s.Heartbeat(t.Context(), store.WorkerInfo{ID: "w-1", Host: "box", PID: 7, Queues: map[string]int{"wide": 1}, Concurrency: 4,
		StartedAt: time.Now()}, time.Minute); err != nil {
		t.Fatal(err)
	}
	page := get(t, h, "/queues/wide~1/ready")
	wantStatus(t, page, http.StatusOK, "a partition's page")
	if strings.Contains(page.Body, "No live worker serves") {
		t.Errorf("a partition's page says no worker serves it while one serves its queue")
	}
	for _, form := range []string{`action="/queues/wide~1/pause"`, `action="/queues/wide~1/resume"`, `action="/queues/wide~1/limits"`, `action="/queues/wide~1/groups"`} {
		if strings.Contains(page.Body, form) {
			t.Errorf("a partition's page has the form %s", form)
		}
	}
	if !strings.Contains(page.Body, `A partition of <a href="/queues/wide/ready">wide</a>`) {
		t.Errorf("a partition's page does not link to its queue:\n%s", page.Body)
	}
	for _, target := range []string{"/queues/wide~1/pause", "/queues/wide~1/resume", "/queues/wide~1/limits", "/queues/wide~1/groups"} {
		r := post(t, h, target, url.Values{"confirm": {"1"}, "max_running": {"3"}, "group": {"acme"}, "limit": {"2"}})
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "partition of wide") {
			t.Errorf("POST %s: status %d, want 400 saying to set it on wide; body:\n%.600s", target, r.Code, r.Body)
		}
	}
	if r := post(t, h, "/queues/wide/pause", url.Values{"confirm": {"1"}}); r.Code != http.StatusSeeOther {
		t.Fatalf("pausing wide: status %d", r.Code)
	}
	for _, p := range []string{"wide~0", "wide~1"} {
		st, err := s.GetQueueStats(t.Context(), p)
		if err != nil || !st.Config.Paused {
			t.Errorf("%s after pausing wide: paused %v, %v", p, st.Config.Paused, err)
		}
	}
}
