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
