package memstore_test

import (
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) hopper.Store { return memstore.New() })
}
