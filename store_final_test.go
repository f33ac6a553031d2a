package hopper_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
)

// TestFinalStoreErrorStopsWorkerAndScheduler: a store whose error says it
// is final (StoreFinal: here redisstore's refusal of a data layout newer
// than this release reads, ErrLayout, which says so) stops a Worker and a standalone
// Scheduler, and their Run returns the error, which names what to do
// (upgrade hopper); they logged it and tried again until their context
// ended, then returned nil.
func TestFinalStoreErrorStopsWorkerAndScheduler(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	if err := rdb.Set(t.Context(), "{"+prefix+"}:layout", strconv.Itoa(redisstore.LayoutVersion+1), 0).Err(); err != nil {
		t.Fatal(err)
	}
	st := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: testutil.Logger()})
	w := hopper.NewWorker(st, testConfig("layout"))
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Echo]) error { return nil })
	for what, run := range map[string]func(context.Context) error{
		"Worker": w.Run,
		"Scheduler": hopper.NewScheduler(st, &hopper.SchedulerConfig{
			Queues: []string{"layout"}, Logger: testutil.Logger(),
		}).Run,
	} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		done := make(chan error, 1)
		go func() { done <- run(ctx) }()
		select {
		case err := <-done:
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			t.Logf("%s.Run returned %q", what, msg)
			if !errors.Is(err, redisstore.ErrLayout) || !strings.Contains(msg, "stopped") ||
				!strings.Contains(msg, "upgrade hopper") || strings.Count(msg, "hopper:") != 1 {
				t.Errorf("%s.Run returned %q, want an error wrapping redisstore.ErrLayout that says it stopped and to upgrade hopper, with \"hopper:\" once", what, msg)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s.Run did not return within 10s on a store whose every call fails with a final error", what)
			cancel()
			<-done
		}
		cancel()
	}
}
