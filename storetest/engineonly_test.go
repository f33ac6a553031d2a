package storetest_test

import (
	"testing"

	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
	"github.com/hopperq/hopper/storetest"
)

// engineOnly is a store that implements store.Store and nothing else: the
// methods of store.Admin that memstore has are hidden by the embedding.
type engineOnly struct{ store.Store }

// TestEngineOnly runs the suite on a store without store.Admin: the Engine
// group must pass on its own, and the Admin group is skipped.
func TestEngineOnly(t *testing.T) {
	if _, ok := any(engineOnly{memstore.New(nil)}).(store.Admin); ok {
		t.Fatal("engineOnly implements store.Admin, want a store with the engine's interface only")
	}
	storetest.Run(t, func(t *testing.T) store.Store { return engineOnly{memstore.New(nil)} })
}
