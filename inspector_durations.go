package hopper

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// KindDuration is how long the handlers of one kind ran in a queue: how
// many ran, and percentiles of their durations. Each figure is the upper
// bound of its duration bucket (store.DurationBucket: within about 19%).
type KindDuration struct {
	Kind          string
	Count         int64
	P50, P95, P99 time.Duration
	Max           time.Duration
}

// GetKindDurations returns, per kind, how long queue's handlers ran from the
// hour holding since until now (the store keeps store.DurationsKept: a
// day), the most run kind first. Workers record durations about once a
// minute, so the last minute may be missing. It returns ErrNotSupported
// for a store without store.Durations; a zero since means the last day.
func (i *Inspector) GetKindDurations(ctx context.Context, queue string, since time.Time) ([]KindDuration, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	ds, err := optional[store.Durations](i.st, "reading handler durations", "store.Durations")
	if err != nil {
		return nil, err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if since.IsZero() {
		since = time.Now().Add(-store.DurationsKept)
	}
	counts, err := ds.GetDurationCounts(ctx, queue, since)
	if err != nil {
		return nil, err
	}
	byKind := map[string][]store.DurationCount{}
	for _, c := range counts {
		byKind[c.Kind] = append(byKind[c.Kind], c)
	}
	out := make([]KindDuration, 0, len(byKind))
	for kind, cs := range byKind {
		slices.SortFunc(cs, func(a, b store.DurationCount) int { return cmp.Compare(a.Bucket, b.Bucket) })
		kd := KindDuration{Kind: kind}
		for _, c := range cs {
			kd.Count += c.Count
		}
		at := func(p float64) time.Duration {
			want := int64(float64(kd.Count)*p + 0.5)
			var seen int64
			for _, c := range cs {
				seen += c.Count
				if seen >= max(want, 1) {
					return store.BucketUpper(c.Bucket)
				}
			}
			return store.BucketUpper(cs[len(cs)-1].Bucket)
		}
		kd.P50, kd.P95, kd.P99 = at(0.50), at(0.95), at(0.99)
		kd.Max = store.BucketUpper(cs[len(cs)-1].Bucket)
		out = append(out, kd)
	}
	slices.SortFunc(out, func(a, b KindDuration) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind)) })
	return out, nil
}
