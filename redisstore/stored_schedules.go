package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hopperq/hopper/internal/wire"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// storedRecord is a StoredSchedule as the hash {p}:sdefs keeps it: one
// msgpack map (storedCodec) of the schedule's fields and of its job's,
// the job's queue being the schedule's. Every field of store.NewJob with
// a wire key is kept, so a job option added to store.JobSpec is kept with
// no edit here.
type storedRecord struct {
	Name      string       `wire:"n"`
	Spec      string       `wire:"s"`
	Paused    bool         `wire:"p"`
	CatchUp   bool         `wire:"c"`
	UpdatedAt time.Time    `wire:"u"`
	Job       store.NewJob `wire:",inline"`
}

// storedCodec encodes storedRecord. Records written before it kept the
// job's Retention under "rt".
var storedCodec = wire.New[storedRecord](wire.Alias("rt", "ret"))

// PutSchedule adds or replaces a stored schedule (see store.ScheduleStore)
// and bumps the version, in one transaction.
func (s *Store) PutSchedule(ctx context.Context, sc store.StoredSchedule) error {
	if err := sc.Validate(nil); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	r := storedRecord{Name: sc.Name, Spec: sc.Spec, Paused: sc.Paused, CatchUp: sc.CatchUp, UpdatedAt: time.Now(), Job: sc.Job}
	r.Job.Queue = sc.Queue
	b, _ := storedCodec.AppendMap(nil, &r)
	cmds, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, s.g.stored, sc.Queue+":"+sc.Name, b)
		p.Incr(ctx, s.g.storedVer)
		return nil
	})
	err = txErr(cmds, err)
	return wrap("put schedule "+sc.Name, err)
}

// DeleteSchedule removes a stored schedule and bumps the version; it
// reports whether there was one.
func (s *Store) DeleteSchedule(ctx context.Context, queue, name string) (bool, error) {
	if err := s.begin(ctx); err != nil {
		return false, err
	}
	var del *redis.IntCmd
	cmds, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		del = p.HDel(ctx, s.g.stored, queue+":"+name)
		p.Incr(ctx, s.g.storedVer)
		return nil
	})
	err = txErr(cmds, err)
	if err != nil {
		return false, wrap("delete schedule "+name, err)
	}
	return del.Val() == 1, nil
}

// ListStoredSchedules returns the stored schedules, sorted by queue then name,
// and their version. A record that does not decode fails the call with an
// error wrapping store.ErrCorrupt.
//
// The version is read first, then the schedules, in one pipeline but not
// in a transaction: Redis at maxmemory refuses every command queued in a
// MULTI, reads included, and a worker, the dashboard and `hopper
// schedules list` must read the schedules while Redis is full. Each change
// writes the schedules and bumps the version in one transaction, so a
// change that lands between the two reads is in the schedules returned
// but not in the version: the caller's next poll sees a newer version and
// reads them again, so nothing is missed (read the other way round, such
// a change would be in the version and not in the schedules, and missed).
func (s *Store) ListStoredSchedules(ctx context.Context) ([]store.StoredSchedule, int64, error) {
	if err := s.begin(ctx); err != nil {
		return nil, 0, err
	}
	var all *redis.MapStringStringCmd
	var ver *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		ver = p.Get(ctx, s.g.storedVer)
		all = p.HGetAll(ctx, s.g.stored)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, wrap("read stored schedules", err)
	}
	if err := ver.Err(); err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, wrap("read stored schedules", err)
	}
	if err := all.Err(); err != nil {
		return nil, 0, wrap("read stored schedules", err)
	}
	v, _ := ver.Int64()
	out := make([]store.StoredSchedule, 0, len(all.Val()))
	for field, val := range all.Val() {
		var r storedRecord
		if n, err := storedCodec.Decode(val, &r); err != nil || n != len(val) {
			return nil, 0, fmt.Errorf("redisstore: stored schedule %q: %w", field, errCorrupt)
		}
		out = append(out, store.StoredSchedule{Name: r.Name, Queue: r.Job.Queue, Spec: r.Spec, Paused: r.Paused, CatchUp: r.CatchUp,
			UpdatedAt: r.UpdatedAt, Job: r.Job})
	}
	slices.SortFunc(out, func(a, b store.StoredSchedule) int {
		return cmp.Or(cmp.Compare(a.Queue, b.Queue), cmp.Compare(a.Name, b.Name))
	})
	return out, v, nil
}

// SchedulesVersion returns the stored schedules' version: one GET.
func (s *Store) SchedulesVersion(ctx context.Context) (_ int64, err error) {
	defer func() { err = s.closedCheck(ctx, err) }()
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	v, err := s.rdb.Get(ctx, s.g.storedVer).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return v, wrap("read the schedules' version", err)
}
