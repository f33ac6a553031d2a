package dashboard_test

import (
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// The Redis page shows each node's version, memory, clients,
// persistence and replication, and the estimated memory per queue, said
// to be an estimate; on a store with no server it says so plainly. The
// nav links it.
func TestRedisInfoPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		page := get(t, h, "/redis")
		wantStatus(t, page, http.StatusOK, "GET /redis")
		wantContains(t, page.Body, "nav", `href="/redis" aria-current="page">Redis</a>`)
		if _, ok := store.As[store.ServerInformer](s); !ok {
			wantContains(t, page.Body, "redis page on memstore", `id="redis-unsupported"`, "has no Redis server to report on")
			wantLacks(t, page.Body, "redis page on memstore", `id="queue-memory"`)
			return
		}
		wantContains(t, page.Body, "redis page", `class="panel redis-node"`, "<dt>Version</dt><dd>", "<dt>Memory used</dt>",
			"<dt>Clients</dt>", "<dt>AOF</dt>", "<dt>RDB</dt>", "<dt>Replication</dt>", "policy",
			`id="queue-memory"`, "An estimate: MEMORY USAGE", `data-queue="default"`)
		wantLacks(t, page.Body, "redis page", `id="redis-unsupported"`)
	})
}
