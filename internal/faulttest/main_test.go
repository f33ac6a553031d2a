package faulttest

import (
	"os"
	"testing"

	"github.com/hopperq/hopper/internal/proctest"
)

// TestMain runs the tests or, in a worker process a scenario started (this
// test binary re-executed: worker_test.go), the worker.
func TestMain(m *testing.M) {
	proctest.Main()
	// No redistest.Main: every scenario harms its server, so each starts
	// its own.
	os.Exit(m.Run())
}
