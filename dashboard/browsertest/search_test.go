package browsertest_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// bigQueue is how many jobs TestSearchMillion puts in one state, and
// needleAt where the ones it looks for are.
const (
	bigQueue = 1_000_000
	needleAt = 900_000
)

// TestSearchMillion searches a queue of a million ready jobs in a real
// browser: a job at position 900,000 is found by its args and by its kind
// (the search goes on by itself, a stretch per request, saying how far it
// got), and an ID prefix finds its job.
func TestSearchMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("a million jobs: not in -short")
	}
	browser := startBrowser(t)
	shots := screenshotDir(t)
	st := memstore.New(nil)
	ctx := context.Background()
	batch := make([]*store.NewJob, 0, 10_000)
	for i := range bigQueue {
		kind, to := "bulk_mail", fmt.Sprintf("user%d@example.com", i)
		if i == needleAt+1 {
			kind = "rare_report"
		}
		args, err := msgpack.Marshal(map[string]string{"to": to})
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, &store.NewJob{ID: fmt.Sprintf("big-%07d", i), Queue: "big", Kind: kind, Args: args})
		if len(batch) == cap(batch) {
			if _, err := st.Enqueue(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	mux := http.NewServeMux()
	mux.Handle(mountPrefix+"/", http.StripPrefix(mountPrefix, dashboard.New(st, &dashboard.Config{
		Prefix: mountPrefix, Logger: slog.New(slog.DiscardHandler), RefreshInterval: time.Second})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := &site{srv: srv, st: st}

	for _, c := range []struct{ name, query, want, matches string }{
		{"args", "?args=user900000@example", fmt.Sprintf("big-%07d", needleAt), "1 match"},
		{"kind", "?kind=rare_report", fmt.Sprintf("big-%07d", needleAt+1), "1 match"},
		{"id prefix", "?id=big-090000", fmt.Sprintf("big-%07d", needleAt), "10 matches"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := newTab(t, browser, nil)
			tab, cancel := context.WithTimeout(tab, 5*time.Minute)
			defer cancel()
			nav(t, tab, s, "/queues/big/ready"+c.query, "#jobs-region")
			// The page goes on by itself until it finds the job: a page load
			// per stretch, so the wait outlives each page's script context.
			waitAcrossLoads(t, tab, "!!document.querySelector('[data-job-row="+jsString(c.want)+"]')", "the job at position 900,000")
			status := textOf(t, tab, "#search-status")
			if !strings.Contains(status, "of 1,000,000 in ready") || !strings.HasPrefix(status, c.matches) {
				t.Errorf("search status %q, want %s and how far of the 1,000,000 it got", status, c.matches)
			}
			if c.name == "args" {
				screenshot(t, tab, shots, "55-search-million")
			}
		})
	}
	// With the queue's kind index, the kind's one job answers at once.
	t.Run("kind through the index", func(t *testing.T) {
		if err := st.SetQueueConfig(ctx, "big", store.QueueConfig{KindIndex: true}); err != nil {
			t.Fatal(err)
		}
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/big/ready?kind=rare_report", "#jobs-region")
		if status := textOf(t, tab, "#search-status"); !strings.HasPrefix(status, "1 match in ready among 1–1 of the 1 jobs of kind rare_report (kind index)") {
			t.Errorf("search status %q, want the one match through the kind index", status)
		}
		waitFor(t, tab, "!!document.querySelector('[data-job-row="+jsString(fmt.Sprintf("big-%07d", needleAt+1))+"]')", "the job of kind rare_report")
		screenshot(t, tab, shots, "56-search-kind-index")
	})
}

// waitAcrossLoads polls a JavaScript condition until it holds, across page
// loads: an evaluation that fails because the page it ran in went away
// (the page replaced itself) is tried again on the next one.
func waitAcrossLoads(t *testing.T, tab context.Context, cond, what string) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](cond))
		if err == nil && ok {
			return
		}
		last = err
		select {
		case <-tab.Done():
			t.Fatalf("waiting for %s (%s): %v (last evaluation: %v)", what, cond, tab.Err(), last)
		case <-tick.C:
		}
	}
}
