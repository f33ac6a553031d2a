package hopper_test

import (
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil/teststore"
)

// TestMain runs the tests on a shared Redis server, or, in a child process
// a multi-process test started (see proc_helpers_test.go), the child's role.
func TestMain(m *testing.M) {
	runChildIfAsked()
	redistest.Main(m)
}

// forEachStore runs f as a parallel subtest per store kind.
func forEachStore(t *testing.T, f func(t *testing.T, open func() hopper.Store)) {
	teststore.ForEachStore(t, f)
}
