package engine

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sync/atomic"
	"testing"

	"github.com/hopperq/hopper/store"
)

// finishGated is a store whose first Finish call waits for release once
// it told entered; every later call tells later as it begins. Every
// request is applied.
type finishGated struct {
	store.Store
	first   atomic.Bool
	entered chan struct{}
	release chan struct{}
	later   chan struct{}
}

func (s *finishGated) Finish(_ context.Context, reqs []store.AttemptEnd) ([]error, error) {
	if s.first.CompareAndSwap(false, true) {
		close(s.entered)
		<-s.release
	} else {
		select {
		case s.later <- struct{}{}:
		default:
		}
	}
	return make([]error, len(reqs)), nil
}

// The outcomes that come while a Finish call is in flight go in a call of
// their own, and the batches the finisher fills again never take the
// place of one still in flight: each job's outcome is confirmed once, for
// that job.
func TestFinisherConfirmsEachBatchForItsOwnJobs(t *testing.T) {
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Concurrency = 8 // room in the finisher's channel for the later outcomes
	fs := &finishGated{entered: make(chan struct{}), release: make(chan struct{}), later: make(chan struct{}, 1)}
	r, done := finishWatched(fs, cfg)
	want := map[string]int{"first ack": 1}
	r.fin.add(running(r, "q", "first"))
	<-fs.entered
	for i := range 4 {
		id := fmt.Sprint("later", i)
		want[id+" ack"] = 1
		r.fin.add(running(r, "q", id))
	}
	<-fs.later // the later outcomes went while the first call was held
	close(fs.release)
	got := map[string]int{}
	for _, o := range done() {
		got[o]++
	}
	if !maps.Equal(got, want) {
		t.Fatalf("confirmed outcomes (times each) %v, want each job's once: %v", got, want)
	}
}
