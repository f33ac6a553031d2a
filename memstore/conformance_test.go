package memstore_test

import (
	"testing"

	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
	"github.com/hopperq/hopper/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return memstore.New(nil) })
}

// wrapped is a store wrapper that declares only store.Store and Unwrap.
type wrapped struct{ store.Store }

func (w wrapped) Unwrap() store.Store { return w.Store }

// TestConformanceWrapped runs the suite on a memstore behind a wrapper that
// declares nothing but store.Store and Unwrap: every optional group runs
// and passes, its capability found through Unwrap (store.As).
func TestConformanceWrapped(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return wrapped{memstore.New(nil)} })
}
