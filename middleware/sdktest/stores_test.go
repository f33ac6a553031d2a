package sdktest_test

import (
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
)

// TestMain shares one throwaway redis-server between the tests.
func TestMain(m *testing.M) { redistest.Main(m) }

// storeCase is one Store implementation the tests run on.
type storeCase struct {
	name string
	new  func(t testing.TB) hopper.Store
}

// stores lists the stores every end-to-end test runs on: memstore, and
// redisstore on a real Redis with a key prefix of its own per test.
var stores = []storeCase{
	{"memstore", func(testing.TB) hopper.Store { return memstore.New(nil) }},
	{"redisstore", func(t testing.TB) hopper.Store {
		rdb := redistest.Start(t).Client(t)
		return redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger()})
	}},
}

// forEachStore runs f as a subtest on each store, with a fresh store.
func forEachStore(t *testing.T, f func(t *testing.T, s hopper.Store)) {
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) { f(t, sc.new(t)) })
	}
}
