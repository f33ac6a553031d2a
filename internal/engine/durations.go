package engine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
)

// durationFlushEvery is how often a worker hands the handler durations it
// counted to the store (store.Durations): one call a minute, whatever the
// job rate.
const durationFlushEvery = time.Minute

// durationKey is a queue, a kind and a duration bucket.
type durationKey struct {
	queue, kind string
	bucket      int
}

// durationCounts counts handler durations until they are flushed. Safe for
// concurrent use.
type durationCounts struct {
	mu sync.Mutex
	m  map[durationKey]int64
}

// add counts one handler of kind in queue that ran for d.
func (c *durationCounts) add(queue, kind string, d time.Duration) {
	k := durationKey{queue, kind, store.DurationBucket(d)}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[durationKey]int64{}
	}
	c.m[k]++
	c.mu.Unlock()
}

// take returns the counts and starts afresh.
func (c *durationCounts) take() []store.DurationCount {
	c.mu.Lock()
	m := c.m
	c.m = nil
	c.mu.Unlock()
	out := make([]store.DurationCount, 0, len(m))
	for k, n := range m {
		out = append(out, store.DurationCount{Queue: k.queue, Kind: k.kind, Bucket: k.bucket, Count: n})
	}
	return out
}

// durationLoop flushes the counted durations every durationFlushEvery
// until ctx is done, then once more. It returns at once when the store
// keeps no durations.
func (r *worker) durationLoop(ctx context.Context) {
	if _, ok := store.As[store.Durations](r.st); !ok {
		return
	}
	t := time.NewTicker(durationFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			r.flushDurations(final)
			return
		case <-t.C:
			r.flushDurations(ctx)
		}
	}
}

// flushDurations hands the counted durations to the store, when it keeps
// them.
func (r *worker) flushDurations(ctx context.Context) {
	ds, ok := store.As[store.Durations](r.st)
	if !ok {
		return
	}
	counts := r.durs.take()
	if len(counts) == 0 {
		return
	}
	if err := ds.AddDurations(ctx, counts); err != nil && ctx.Err() == nil {
		r.log.Warn("hopper: recording handler durations failed", slog.Any("error", err))
	}
}
