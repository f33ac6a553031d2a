package pgxoutbox_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

var _ dashboard.OutboxSource = (*pgxoutbox.Relay)(nil)

// TestDashboardShowsOutbox serves the dashboard with a relay that does not
// run as its outbox source: a committed job shows as waiting.
func TestDashboardShowsOutbox(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil); err != nil {
		t.Fatal(err)
	}
	h := dashboard.New(e.store, &dashboard.Config{Outbox: e.relay(t, nil), Logger: testutil.Logger()})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/stats", nil))
	var got struct {
		Outbox struct {
			Depth int64 `json:"depth"`
			LagMS int64 `json:"lag_ms"`
		} `json:"outbox"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("/api/stats: %d %v %s", rec.Code, err, rec.Body)
	}
	if got.Outbox.Depth != 1 || got.Outbox.LagMS < 0 {
		t.Fatalf("outbox %+v, want one job waiting", got.Outbox)
	}
}
