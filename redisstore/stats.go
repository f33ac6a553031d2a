package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// ListQueues lists the queues jobs were enqueued into or configured, sorted.
// Queues only waited on or claimed from are not listed.
func (s *Store) ListQueues(ctx context.Context) (_ []string, err error) {
	defer func() { err = s.closedCheck(ctx, err) }()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	qs, err := s.rdb.SMembers(ctx, s.g.queues).Result()
	if err != nil {
		return nil, wrap("list queues", err)
	}
	slices.Sort(qs)
	s.learnFromNames(ctx, qs)
	return qs, nil
}

// GetQueueStats reports one queue (see store.Store), read atomically by one
// script. Latency is the server's now minus when the oldest ready job fell
// due (its enqueue time, or when it was promoted, released or requeued).
func (s *Store) GetQueueStats(ctx context.Context, queue string) (store.QueueStats, error) {
	if err := s.begin(ctx, queue); err != nil {
		return store.QueueStats{}, err
	}
	if parts := s.partNames(queue); parts != nil {
		return s.partsStats(ctx, queue, parts)
	}
	v, err := s.runQ(ctx, fullScript("stats"), queue).Slice()
	if err == nil && (len(v) < 8 || len(v)%2 != 0) {
		err = fmt.Errorf("unexpected reply of %d values", len(v))
	}
	if err != nil {
		return store.QueueStats{}, wrap("stats of "+strconv.Quote(queue), err)
	}
	n := func(i int) int64 { x, _ := v[i].(int64); return x }
	st := store.QueueStats{
		Queue: queue,
		Counts: store.StateCounts{
			Ready: n(1), Pending: n(2), Unack: n(3), Retry: n(4), Garbage: n(5), Done: n(6),
		},
	}
	if since := n(7); since > 0 && n(0) > since {
		st.Latency = msDur(n(0) - since)
	}
	for i := 8; i+1 < len(v); i += 2 {
		f, _ := v[i].(string)
		val, _ := v[i+1].(string)
		x, _ := strconv.ParseInt(val, 10, 64)
		switch f {
		case "paused":
			st.Config.Paused = x == 1
		case "maxrun":
			st.Config.MaxRunning = int(x)
		case "rate":
			st.Config.RateLimit = int(x)
		case "period":
			st.Config.RatePeriod = msDur(x)
		case "ret":
			st.Config.Retention = msDur(x)
		case "ev":
			st.Config.EventsMaxLen = int(x)
		case "gmax":
			st.Config.GroupMaxRunning = int(x)
		case "grate":
			st.Config.GroupRateLimit = int(x)
		case "gperiod":
			st.Config.GroupRatePeriod = msDur(x)
		case "rsm":
			st.Config.RateSmooth = x == 1
		case "rb":
			st.Config.RateBurst = int(x)
		case "gsm":
			st.Config.GroupRateSmooth = x == 1
		case "gb":
			st.Config.GroupRateBurst = int(x)
		case "ki":
			st.Config.KindIndex = true
		case "kib":
			st.KindIndexBuilding = true
		case "hold":
			if x > n(0) {
				st.HeldUntil = time.UnixMilli(x)
			}
		case "~used":
			st.RateUsed = int(x)
		}
	}
	return st, nil
}

// SetQueueConfig replaces a queue's settings (see store.Admin). It wakes one idle worker of the
// queue, since resuming or raising a limit may make jobs claimable.
func (s *Store) SetQueueConfig(ctx context.Context, queue string, cfg store.QueueConfig) error {
	_, err := s.swapConfig(ctx, queue, nil, cfg)
	return err
}

// swapConfig replaces a queue's settings with cfg, when old is nil or
// equals the settings stored (lua/config.lua), and reports whether it did.
func (s *Store) swapConfig(ctx context.Context, queue string, old *store.QueueConfig, cfg store.QueueConfig) (bool, error) {
	if err := store.ValidateQueueConfig(queue, cfg); err != nil {
		return false, err
	}
	if err := s.begin(ctx, queue); err != nil {
		return false, err
	}
	if q, _, ok := store.SplitPartition(queue); ok {
		// begin let through only a partition that exists.
		return false, fmt.Errorf("%w: %q is a partition of %q, and a partitioned queue's partitions share one config: set it on %q", store.ErrInvalidConfig, queue, q, q)
	}
	if parts := s.partNames(queue); parts != nil {
		return s.setPartsConfig(ctx, queue, parts, old, cfg)
	}
	return s.swapOneConfig(ctx, queue, old, cfg)
}

// swapOneConfig is swapConfig for a queue of one slot: an unpartitioned
// queue or one partition.
func (s *Store) swapOneConfig(ctx context.Context, queue string, old *store.QueueConfig, cfg store.QueueConfig) (bool, error) {
	if err := s.register(ctx, queue); err != nil {
		return false, wrap("set config of "+strconv.Quote(queue), err)
	}
	args := configArgs(cfg)
	if old != nil {
		// The settings read, for the compare: the stored ones only, not
		// the terms derived from them.
		args = append(args, configArgs(*old)[:configSettings]...)
	}
	sh, err := s.runQ(ctx, fullScript("config"), queue, args...).Text()
	if err != nil {
		return false, wrap("set config of "+strconv.Quote(queue), err)
	}
	if sh == "!" {
		return false, nil
	}
	// The queue's shape now: the hot scripts' next variant.
	s.shapes.set(queue, parseShape(sh))
	return true, nil
}

// configSettings is how many of configArgs' values are settings kept in
// conf (the rest are the rate terms derived from them, kept in marks).
const configSettings = 14

// configArgs encodes cfg as lua/config.lua's arguments: the settings
// (durations in milliseconds, rounded up: the scripts compute with them),
// then the rate terms derived from them (store.RateTerms).
func configArgs(cfg store.QueueConfig) []any {
	qr, gr := cfg.QueueRate(), cfg.GroupRate()
	return []any{flag(cfg.Paused), cfg.MaxRunning, cfg.RateLimit, mstime.Ceil(cfg.RatePeriod), mstime.Ceil(cfg.Retention),
		cfg.EventsMaxLen, cfg.GroupMaxRunning, cfg.GroupRateLimit, mstime.Ceil(cfg.GroupRatePeriod), flag(cfg.KindIndex),
		flag(cfg.RateSmooth), cfg.RateBurst, flag(cfg.GroupRateSmooth), cfg.GroupRateBurst,
		mstime.Ceil(qr.Window), qr.Interval.Microseconds(), qr.Tolerance.Microseconds(),
		mstime.Ceil(gr.Window), gr.Interval.Microseconds(), gr.Tolerance.Microseconds(),
		cfg.ClaimGuard().Microseconds(), qr.Lead.Microseconds(), gr.Lead.Microseconds()}
}

// GetThroughput reports acks and failures of queue since since (see
// store.Admin): per minute for the last store.ThroughputMinutes, then per
// hour, from the counters finish and maintain keep
// (lua/lib_throughput.lua).
func (s *Store) GetThroughput(ctx context.Context, queue string, since time.Time) ([]store.ThroughputPoint, error) {
	if err := s.begin(ctx, queue); err != nil {
		return nil, err
	}
	if parts := s.partNames(queue); parts != nil {
		return s.partsThroughput(ctx, parts, since)
	}
	k := s.queueKeys(queue)
	m, err := s.rdb.HGetAll(ctx, k.tput).Result()
	if err != nil {
		return nil, wrap("throughput of "+strconv.Quote(queue), s.closedCheck(ctx, err))
	}
	from := since.UnixMilli() / 60000
	if since.IsZero() {
		from = 0
	}
	// The newest minute field stands for now: the minutes shown are the
	// last ThroughputMinutes up to it; older minute fields not rolled up
	// yet count in their hour, as the roll-up will.
	var newest int64
	for f := range m {
		if len(f) > 1 && (f[0] == 'd' || f[0] == 'f' || f[0] == 'r') {
			if at, err := strconv.ParseInt(f[1:], 10, 64); err == nil && at > newest {
				newest = at
			}
		}
	}
	first := newest - store.ThroughputMinutes + 1
	points := make(map[int64]*store.ThroughputPoint) // by start, in Unix minutes
	point := func(start int64, span time.Duration) *store.ThroughputPoint {
		p := points[start]
		if p == nil {
			p = &store.ThroughputPoint{Minute: time.UnixMilli(start * 60000), Span: span}
			points[start] = p
		}
		return p
	}
	for f, val := range m {
		if len(f) < 2 {
			continue
		}
		at, err1 := strconv.ParseInt(f[1:], 10, 64)
		count, err2 := strconv.ParseInt(val, 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		c := f[0]
		if strings.IndexByte("dfrlDFRL", c) < 0 {
			continue
		}
		hourly := c >= 'A' && c <= 'Z'
		minute, span := at, time.Minute
		if hourly || at < first {
			minute, span = hourStart(at, hourly), time.Hour
		}
		if minute+int64(span/time.Minute) <= from {
			continue
		}
		p := point(minute, span)
		switch c {
		case 'd', 'D':
			p.Done += count
		case 'f', 'F':
			p.Failed += count
		case 'r', 'R':
			p.Sampled, p.Ready = true, max(p.Ready, count)
		case 'l', 'L':
			p.Sampled, p.Latency = true, max(p.Latency, time.Duration(count)*time.Millisecond)
		}
	}
	out := make([]store.ThroughputPoint, 0, len(points))
	for _, p := range points {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b store.ThroughputPoint) int { return a.Minute.Compare(b.Minute) })
	return out, nil
}

// hourStart returns, in Unix minutes, the start of the hour of a counter
// field: at is a Unix hour when isHour, else a Unix minute.
func hourStart(at int64, isHour bool) int64 {
	if isHour {
		return at * 60
	}
	return at / 60 * 60
}
