package redisstore_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// Minute counters older than a day are rolled up into hours, kept 30 days,
// and Throughput reads both without counting anything twice.
func TestThroughputRollUp(t *testing.T) {
	s, rdb := newStore(t, nil)
	ctx := t.Context()
	key := redisstore.ThroughputKey(s, "q")
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	cur := now.UnixMilli() / 60000
	// Six days of minutes older than a day, one ack each, as an idle
	// spell or an older version leaves them (more than the hash's bound, so
	// the roll-up runs at the next count whatever the minute); and an hour
	// 40 days old, past the month kept.
	const oldMinutes = 6 * 24 * 60
	fields := map[string]any{"D" + strconv.FormatInt(cur/60-40*24, 10): 7}
	for m := cur - store.ThroughputMinutes - oldMinutes; m < cur-store.ThroughputMinutes; m++ {
		fields["d"+strconv.FormatInt(m, 10)] = 1
	}
	for m := cur - store.ThroughputMinutes + 1; m < cur; m++ {
		fields["f"+strconv.FormatInt(m, 10)] = 1
	}
	if err := rdb.HSet(ctx, key, fields).Err(); err != nil {
		t.Fatal(err)
	}
	before, _ := rdb.HLen(ctx, key).Result()

	// One ack now: a new minute field, over the bound, rolls up.
	if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: "a", Queue: "q", Kind: "k"}}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatal(res, err)
	}
	if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "q", ID: "a", Token: res.Jobs[0].Token, Outcome: store.OutcomeAck}}); err != nil {
		t.Fatal(err)
	}
	after, _ := rdb.HLen(ctx, key).Result()
	if after >= before {
		t.Errorf("the hash kept %d fields after the roll-up (had %d)", after, before)
	}
	if n, _ := rdb.HExists(ctx, key, "D"+strconv.FormatInt(cur/60-40*24, 10)).Result(); n {
		t.Error("the hour 40 days old is still kept")
	}
	pts, err := s.GetThroughput(ctx, "q", now.Add(-45*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var hourDone, minuteDone int64
	for _, p := range pts {
		if p.Minute.Before(now.Add(-31 * 24 * time.Hour)) {
			t.Errorf("a point from %v is older than the month kept", p.Minute)
		}
		switch p.Span {
		case time.Hour:
			hourDone += p.Done
		case time.Minute:
			minuteDone += p.Done
		default:
			t.Errorf("point %+v has span %v", p, p.Span)
		}
	}
	if hourDone != oldMinutes || minuteDone != 1 {
		t.Errorf("Throughput counts %d acks in hours and %d in minutes, want %d and 1", hourDone, minuteDone, oldMinutes)
	}
}
