package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/memstore"
)

// fakeOutbox is an OutboxSource with fixed answers.
type fakeOutbox struct {
	depth, dead int64
	lag         time.Duration
	err         error
}

func (f fakeOutbox) OutboxBacklog(context.Context) (int64, time.Duration, int64, error) {
	return f.depth, f.lag, f.dead, f.err
}

// TestOutboxPanel shows an outbox's depth, lag and dead rows on the
// overview and in /api/stats; without a source there is neither.
func TestOutboxPanel(t *testing.T) {
	st := memstore.New(nil)
	h := newHandler(st, &dashboard.Config{Outbox: fakeOutbox{depth: 1234, lag: 2500 * time.Millisecond, dead: 2}})
	page := do(t, h, http.MethodGet, "/", nil)
	if page.Code != http.StatusOK {
		t.Fatalf("overview: %d", page.Code)
	}
	for _, want := range []string{"Outbox", `data-outbox="depth">1,234<`, `data-outbox="dead">2<`, `data-outbox="lag">`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	var got struct {
		Outbox *struct {
			Depth int64  `json:"depth"`
			LagMS int64  `json:"lag_ms"`
			Lag   string `json:"lag"`
			Dead  int64  `json:"dead"`
			Error string `json:"error"`
		} `json:"outbox"`
	}
	res := do(t, h, http.MethodGet, "/api/stats", nil)
	if err := json.Unmarshal([]byte(res.Body), &got); err != nil || got.Outbox == nil {
		t.Fatalf("/api/stats: %v %s", err, res.Body)
	}
	if o := got.Outbox; o.Depth != 1234 || o.LagMS != 2500 || o.Dead != 2 || o.Lag == "" || o.Error != "" {
		t.Fatalf("/api/stats outbox = %+v", o)
	}

	plain := newHandler(st, nil)
	if body := do(t, plain, http.MethodGet, "/", nil).Body; strings.Contains(body, "data-outbox") {
		t.Error("overview shows an outbox panel without Config.Outbox")
	}
	if body := do(t, plain, http.MethodGet, "/api/stats", nil).Body; strings.Contains(body, `"outbox"`) {
		t.Error("/api/stats has an outbox without Config.Outbox")
	}
}

// TestOutboxFailure keeps the overview up when the outbox cannot be read,
// shows the error escaped, and reports it in the JSON.
func TestOutboxFailure(t *testing.T) {
	h := newHandler(memstore.New(nil), &dashboard.Config{Outbox: fakeOutbox{err: errors.New(`db down <script>alert(1)</script>`)}})
	page := do(t, h, http.MethodGet, "/", nil)
	if page.Code != http.StatusOK || !strings.Contains(page.Body, "The outbox could not be read: db down &lt;script&gt;") || strings.Contains(page.Body, "<script>alert") {
		t.Fatalf("overview with a failing outbox: %d\n%s", page.Code, page.Body)
	}
	res := do(t, h, http.MethodGet, "/api/stats", nil)
	if res.Code != http.StatusOK || !strings.Contains(res.Body, `"error":"db down \u003cscript\u003e`) {
		t.Fatalf("/api/stats with a failing outbox: %d %s", res.Code, res.Body)
	}
}
