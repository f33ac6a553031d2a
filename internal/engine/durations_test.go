package engine

import (
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestDurationCounts(t *testing.T) {
	var c durationCounts
	c.add("q", "a", 40*time.Millisecond)
	c.add("q", "a", 41*time.Millisecond)
	c.add("q", "b", time.Second)
	got := map[durationKey]int64{}
	for _, dc := range c.take() {
		got[durationKey{dc.Queue, dc.Kind, dc.Bucket}] = dc.Count
	}
	want := map[durationKey]int64{
		{"q", "a", store.DurationBucket(40 * time.Millisecond)}: 2,
		{"q", "b", store.DurationBucket(time.Second)}:           1,
	}
	if len(got) != len(want) || got[durationKey{"q", "a", store.DurationBucket(40 * time.Millisecond)}] != 2 {
		t.Errorf("take = %v, want %v", got, want)
	}
	if n := len(c.take()); n != 0 {
		t.Errorf("a second take returned %d counts, want none", n)
	}
	if b := store.DurationBucket(40 * time.Millisecond); store.BucketUpper(b) < 40*time.Millisecond || store.BucketUpper(b) > 48*time.Millisecond {
		t.Errorf("bucket of 40ms has upper bound %v, want within 19%% above", store.BucketUpper(b))
	}
}

// The per-job cost of counting a handler's duration.
func BenchmarkDurationCountsAdd(b *testing.B) {
	var c durationCounts
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.add("default", "send_email", 37*time.Millisecond)
		}
	})
}
