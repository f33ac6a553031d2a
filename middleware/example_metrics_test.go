package middleware_test

import (
	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
)

// Metrics counts attempts by outcome and records their durations and wait
// times; RegisterQueueMetrics reports the jobs in each state of each queue
// when the meter is read. Both use the global MeterProvider unless their
// options name another (middleware/sdktest reads them back with the SDK's
// manual reader).
func ExampleMetrics() {
	store := memstore.New(nil)
	w := hopper.NewWorker(store, nil)
	w.Use(middleware.Metrics(nil))

	unregister, err := middleware.RegisterQueueMetrics(store, nil)
	if err != nil {
		panic(err)
	}
	defer unregister()
}
