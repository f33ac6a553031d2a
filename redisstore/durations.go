package redisstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

// AddDurations adds handler durations to the current hour of their queues
// (see store.Durations): one script call per queue, pipelined. The hour is
// this process's clock's.
func (s *Store) AddDurations(ctx context.Context, counts []store.DurationCount) error {
	if err := store.ValidateDurationCounts(counts); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	by := map[string][]any{}
	var order []string
	hour := time.Now().Unix() / 3600
	for _, c := range counts {
		if c.Count == 0 {
			continue
		}
		if _, ok := by[c.Queue]; !ok {
			order = append(order, c.Queue)
			by[c.Queue] = []any{hour, int64(store.DurationsKept / time.Hour)}
		}
		by[c.Queue] = append(by[c.Queue], strconv.Itoa(c.Bucket)+"|"+c.Kind, c.Count)
	}
	if len(order) == 0 {
		return nil
	}
	calls := make([]*evalCall, len(order))
	for i, q := range order {
		calls[i] = s.queueCall(fullScript("dur_add"), q, by[q]...)
	}
	s.runAll(ctx, calls, nil)
	for _, c := range calls {
		if err := c.cmd.Err(); err != nil {
			return wrap("add durations", err)
		}
	}
	return nil
}

// GetDurationCounts returns queue's duration counts per kind and bucket since
// the hour holding since (see store.Durations).
func (s *Store) GetDurationCounts(ctx context.Context, queue string, since time.Time) ([]store.DurationCount, error) {
	if err := s.begin(ctx, queue); err != nil {
		return nil, err
	}
	from := since.Unix() / 3600
	sum := map[[2]string]int64{}
	queues := s.partNames(queue) // a partitioned queue's counts add up
	if queues == nil {
		queues = []string{queue}
	}
	for _, q := range queues {
		m, err := s.rdb.HGetAll(ctx, s.queueKeys(q).durations).Result()
		if err != nil {
			return nil, wrap("durations of "+strconv.Quote(queue), err)
		}
		addDurations(sum, m, from)
	}
	out := make([]store.DurationCount, 0, len(sum))
	for k, n := range sum {
		b, _ := strconv.Atoi(k[1])
		out = append(out, store.DurationCount{Queue: queue, Kind: k[0], Bucket: b, Count: n})
	}
	return out, nil
}

// addDurations adds the counts of a durations hash ("hour|bucket|kind" ->
// count) from hour from on to sum, by kind and bucket.
func addDurations(sum map[[2]string]int64, m map[string]string, from int64) {
	for f, v := range m {
		hs, rest, ok := strings.Cut(f, "|")
		bs, kind, ok2 := strings.Cut(rest, "|")
		h, err1 := strconv.ParseInt(hs, 10, 64)
		n, err2 := strconv.ParseInt(v, 10, 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || h < from {
			continue
		}
		sum[[2]string{kind, bs}] += n
	}
}
