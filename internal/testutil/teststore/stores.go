// Package teststore gives hopper's end-to-end tests the stores they run on:
// memstore, and redisstore on a throwaway Redis (internal/redistest). It is
// apart from testutil so that the stores' own tests can use testutil.
package teststore

import (
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// StoreKind is one store implementation a test runs on. Open returns a
// function that opens a new handle on the same state each time it is
// called (for Redis, a new client on the same server and key prefix), as
// separate processes would have.
type StoreKind struct {
	Name string
	Open func(t testing.TB) func() store.Store
}

// StoreKinds lists the stores end-to-end tests run on: memstore, and
// redisstore on a throwaway Redis with a key prefix of its own per test.
func StoreKinds() []StoreKind {
	return []StoreKind{
		{"memstore", func(testing.TB) func() store.Store {
			s := memstore.New(nil)
			return func() store.Store { return s }
		}},
		{"redis", func(t testing.TB) func() store.Store {
			srv := redistest.Start(t)
			prefix := redistest.Prefix(t)
			return func() store.Store {
				return redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix, Logger: testutil.Logger()})
			}
		}},
	}
}

// ForEachStore runs f as a parallel subtest per store kind, with open
// giving handles on one fresh store.
func ForEachStore(t *testing.T, f func(t *testing.T, open func() store.Store)) {
	for _, k := range StoreKinds() {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			f(t, k.Open(t))
		})
	}
}
