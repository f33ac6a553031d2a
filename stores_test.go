package hopper_test

import (
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
)

// TestMain runs the tests on a shared Redis server, or, in a child process
// a multi-process test started (see proc_helpers_test.go), the child's role.
func TestMain(m *testing.M) {
	runChildIfAsked()
	redistest.Main(m)
}

// storeKinds are the stores end-to-end tests run on. open returns a new
// handle on the same state each time it is called (for Redis, a new client
// on the same server and prefix), as separate processes would have.
type storeKind struct {
	name string
	open func(t testing.TB) func() hopper.Store
}

func storeKinds() []storeKind {
	return []storeKind{
		{"memstore", func(t testing.TB) func() hopper.Store {
			s := memstore.New(nil)
			return func() hopper.Store { return s }
		}},
		{"redis", func(t testing.TB) func() hopper.Store {
			srv := redistest.Start(t)
			prefix := redistest.Prefix(t)
			return func() hopper.Store {
				return redisstore.New(srv.Client(t), &redisstore.Options{Prefix: prefix})
			}
		}},
	}
}

// forEachStore runs f as a parallel subtest per store kind.
func forEachStore(t *testing.T, f func(t *testing.T, open func() hopper.Store)) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			f(t, k.open(t))
		})
	}
}
