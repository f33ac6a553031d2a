package dashboard_test

import (
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestFooterShowsVersion: an operator sees which hopper serves the page.
func TestFooterShowsVersion(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		for _, path := range []string{"/", "/queues/default/ready", "/workers"} {
			r := get(t, newHandler(s, nil), path)
			wantStatus(t, r, http.StatusOK, "GET "+path)
			wantContains(t, r.Body, path, "hopper "+hopper.Version)
		}
	})
}
