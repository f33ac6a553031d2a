package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
	"github.com/vmihailenco/msgpack/v5"
)

var _ store.ScheduleRuns = (*Store)(nil)

// runRecord is a ScheduleRun as stored: msgpack, short names, the time in
// Unix ms.
type runRecord struct {
	At     int64  `msgpack:"t"`
	Queue  string `msgpack:"q"`
	ID     string `msgpack:"i"`
	Manual bool   `msgpack:"m,omitempty"`
}

// scheduleRunsKey is the list of a schedule's runs, the latest first:
// "{<prefix>}:sr:<len(queue)>:<queue>:<name>" (the length keeps a queue
// and name with colons apart).
func (s *Store) scheduleRunsKey(queue, name string) string {
	return s.g.tag + "sr:" + strconv.Itoa(len(queue)) + ":" + queue + ":" + name
}

// RecordScheduleRun pushes run on the schedule's list and trims it to
// store.MaxScheduleRuns, in one transaction (see store.ScheduleRuns).
func (s *Store) RecordScheduleRun(ctx context.Context, queue, name string, run store.ScheduleRun) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	if err := store.ValidateScheduleRun(queue, name, run); err != nil {
		return err
	}
	b, err := msgpack.Marshal(&runRecord{At: run.At.UnixMilli(), Queue: run.Queue, ID: run.JobID, Manual: run.Manual})
	if err != nil {
		return fmt.Errorf("redisstore: encode schedule run: %w", err)
	}
	key := s.scheduleRunsKey(queue, name)
	cmds, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, key, b)
		p.LTrim(ctx, key, 0, store.MaxScheduleRuns-1)
		return nil
	})
	err = txErr(cmds, err)
	return wrap("record a run of schedule "+strconv.Quote(name), err)
}

// ListScheduleRuns returns the schedule's runs, the latest first (see
// store.ScheduleRuns). A corrupt entry gives an error wrapping errCorrupt.
func (s *Store) ListScheduleRuns(ctx context.Context, queue, name string) ([]store.ScheduleRun, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	vals, err := s.rdb.LRange(ctx, s.scheduleRunsKey(queue, name), 0, store.MaxScheduleRuns-1).Result()
	if err != nil {
		return nil, wrap("runs of schedule "+strconv.Quote(name), err)
	}
	out := make([]store.ScheduleRun, 0, len(vals))
	for _, v := range vals {
		var r runRecord
		if err := unmarshalRecord(v, &r); err != nil {
			return nil, fmt.Errorf("redisstore: decode schedule run: %w", errCorrupt)
		}
		out = append(out, store.ScheduleRun{At: time.UnixMilli(r.At), Queue: r.Queue, JobID: r.ID, Manual: r.Manual})
	}
	return out, nil
}

// UnregisterSchedule deletes the schedule's registration and its runs
// (see store.ScheduleRuns).
func (s *Store) UnregisterSchedule(ctx context.Context, queue, name string) (bool, error) {
	if err := s.begin(ctx); err != nil {
		return false, err
	}
	var hdel *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		hdel = p.HDel(ctx, s.g.schedules, queue+":"+name)
		p.Del(ctx, s.scheduleRunsKey(queue, name))
		return nil
	})
	if err != nil {
		return false, wrap("unregister schedule "+strconv.Quote(name), err)
	}
	return hdel.Val() > 0, nil
}
