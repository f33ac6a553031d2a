package main

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
)

// TestReplicaAddressHint: a command given a replica's address, where the
// store cannot load its functions (READONLY), fails saying the server is
// a replica and what to give instead. It said only READONLY's text.
func TestReplicaAddressHint(t *testing.T) {
	master := redistest.Start(t, redistest.Private())
	replica := redistest.Start(t, redistest.Private())
	host, port, _ := strings.Cut(master.Addr, ":")
	if err := replica.Client(t).Do(t.Context(), "REPLICAOF", host, port).Err(); err != nil {
		t.Fatal(err)
	}
	r := runMain(t, "stats", "--redis", "redis://"+replica.Addr+"/0", "--redis-prefix", redistest.Prefix(t))
	wantCode(t, r, 1, "stats on a replica")
	wantOut(t, r.stderr, "stats on a replica", "READONLY", "read-only replica", "the master's address", "--cluster")
}
