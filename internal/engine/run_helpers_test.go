package engine

import (
	"context"
	"testing"

	"github.com/hopperq/hopper/store"
)

// startRun runs the engine on st with cfg and handler h until the test
// ends, and waits for Run to return then.
func startRun(t *testing.T, st store.Store, cfg Config, h func(ctx context.Context, rec *store.JobRecord) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, st, cfg, h) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}
