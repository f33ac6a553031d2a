package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// stats is the part of GET /api/stats the tests read.
type stats struct {
	Queues []struct {
		Name      string
		Paused    bool
		Counts    map[string]int64
		LatencyMS int64 `json:"latency_ms"`
		Chart     struct {
			Done, Failed, Max int64
			Bars              []struct{ T string }
		}
	}
	Totals struct {
		Counts map[string]int64
		Queues int
		Paused int
		Chart  struct{ Done, Failed int64 }
	}
}

func getStats(t *testing.T, h http.Handler, target string) stats {
	t.Helper()
	r := get(t, h, target)
	wantStatus(t, r, http.StatusOK, target)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: Content-Type %q", target, ct)
	}
	var s stats
	if err := json.Unmarshal([]byte(r.Body), &s); err != nil {
		t.Fatalf("%s: %v\n%s", target, err, r.Body)
	}
	return s
}

func TestStatsJSON(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		st := getStats(t, h, "/api/stats")
		if len(st.Queues) != 2 || st.Queues[0].Name != "critical" || st.Queues[1].Name != "default" {
			t.Fatalf("queues %+v, want critical and default", st.Queues)
		}
		d := st.Queues[1]
		want := map[string]int64{"pending": 1, "ready": 3, "unack": 1, "retry": 1, "garbage": 2, "done": 1}
		for k, v := range want {
			if d.Counts[k] != v {
				t.Errorf("default %s = %d, want %d", k, d.Counts[k], v)
			}
		}
		if st.Totals.Counts["ready"] != 4 || st.Totals.Queues != 2 {
			t.Errorf("totals %+v, want 4 ready over 2 queues", st.Totals)
		}
		// The dashtest.Fixture acked one job and failed three attempts, this minute.
		if d.Chart.Done != 1 || d.Chart.Failed != 3 || len(d.Chart.Bars) != 1 || st.Totals.Chart.Done != 1 || st.Totals.Chart.Failed != 3 {
			t.Errorf("throughput: queue %+v, totals %+v; want 1 done and 3 failed in one minute", d.Chart, st.Totals.Chart)
		}
		if d.LatencyMS < 0 {
			t.Errorf("latency %d", d.LatencyMS)
		}

		// A change shows in the next answer: this is what the pages poll.
		c := hopper.NewClient(s, nil)
		if _, err := hopper.Enqueue(context.Background(), c, dashtest.ReportArgs{Month: "new"}, nil); err != nil {
			t.Fatal(err)
		}
		if err := hopper.NewInspector(s).SetQueueConfig(context.Background(), "default", hopper.QueueConfig{Paused: true}); err != nil {
			t.Fatal(err)
		}
		st = getStats(t, h, "/api/stats?queue=default")
		if len(st.Queues) != 1 || st.Queues[0].Counts["ready"] != 4 || !st.Queues[0].Paused || st.Totals.Paused != 1 {
			t.Errorf("after enqueue and pause: %+v", st.Queues)
		}
		wantStatus(t, get(t, h, "/api/stats?queue=bad%20name"), http.StatusBadRequest, "stats of a bad queue name")
	})
}

func TestLiveUpdatesOff(t *testing.T) {
	s := newMem()
	dashtest.Seed(t, s)
	h := newHandler(s, nil)
	wantContains(t, get(t, h, "/").Body, "live on", `data-live="/api/stats" data-refresh="2000"`)
	wantContains(t, get(t, h, "/queues/default/ready").Body, "live on", `data-live="/api/stats?queue=default"`)
	h = newHandler(s, &dashboard.Config{RefreshInterval: -1})
	wantContains(t, get(t, h, "/").Body, "live off", `data-live="" data-refresh="0"`)
}
