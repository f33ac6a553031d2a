package memstore

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/hopperq/hopper/store"
)

// TestFullEventStreamCostsLittlePerStep enqueues into a queue whose event
// stream is full (store.DefaultEventsMaxLen entries): the bytes an
// enqueue allocates must not grow with the stream's length, as they did
// when each step copied every kept entry to trim the oldest (about 32 KB
// a step at the default length, against about 1 KB since).
func TestFullEventStreamCostsLittlePerStep(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	enqueue := func(i int) {
		if _, err := s.Enqueue(ctx, []*store.NewJob{newJob(fmt.Sprintf("j%06d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	const full = 2 * store.DefaultEventsMaxLen
	for i := range full {
		enqueue(i)
	}
	const steps = 4 * store.DefaultEventsMaxLen
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range steps {
		enqueue(full + i)
	}
	runtime.ReadMemStats(&after)
	perStep := (after.TotalAlloc - before.TotalAlloc) / steps
	if perStep > 8<<10 {
		t.Fatalf("an enqueue into a queue with a full event stream allocated %d bytes, want at most %d: the stream's cost grows with its length", perStep, 8<<10)
	}
}
