package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
	"github.com/vmihailenco/msgpack/v5"
)

// storedRecord is a StoredSchedule as the hash {p}:sdefs keeps it.
type storedRecord struct {
	Name       string            `msgpack:"n"`
	Queue      string            `msgpack:"q"`
	Spec       string            `msgpack:"s"`
	Paused     bool              `msgpack:"p,omitempty"`
	CatchUp    bool              `msgpack:"c,omitempty"`
	UpdatedMs  int64             `msgpack:"u"`
	Kind       string            `msgpack:"k"`
	Args       []byte            `msgpack:"a"`
	Meta       map[string]string `msgpack:"m,omitempty"`
	MaxRetries int               `msgpack:"r,omitempty"`
	Timeout    int64             `msgpack:"t,omitempty"`
	Retention  int64             `msgpack:"rt,omitempty"`
	Priority   int               `msgpack:"pr,omitempty"`
	Group      string            `msgpack:"g,omitempty"`
}

// PutSchedule adds or replaces a stored schedule (see store.ScheduleStore)
// and bumps the version, in one transaction.
func (s *Store) PutSchedule(ctx context.Context, sc store.StoredSchedule) error {
	if err := sc.Validate(nil); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	j := sc.Job
	b, err := msgpack.Marshal(&storedRecord{Name: sc.Name, Queue: sc.Queue, Spec: sc.Spec, Paused: sc.Paused, CatchUp: sc.CatchUp,
		UpdatedMs: time.Now().UnixMilli(), Kind: j.Kind, Args: j.Args, Meta: j.Meta, MaxRetries: j.MaxRetries,
		Timeout: int64(j.Timeout), Retention: int64(j.Retention), Priority: j.Priority, Group: j.Group})
	if err != nil {
		return fmt.Errorf("redisstore: encode schedule %q: %w", sc.Name, err)
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, s.g.stored, sc.Queue+":"+sc.Name, b)
		p.Incr(ctx, s.g.storedVer)
		return nil
	})
	return wrap("put schedule "+sc.Name, err)
}

// DeleteSchedule removes a stored schedule and bumps the version; it
// reports whether there was one.
func (s *Store) DeleteSchedule(ctx context.Context, queue, name string) (bool, error) {
	if err := s.begin(ctx); err != nil {
		return false, err
	}
	var del *redis.IntCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		del = p.HDel(ctx, s.g.stored, queue+":"+name)
		p.Incr(ctx, s.g.storedVer)
		return nil
	})
	if err != nil {
		return false, wrap("delete schedule "+name, err)
	}
	return del.Val() == 1, nil
}

// StoredSchedules returns the stored schedules, sorted by queue then name,
// and their version, read in one transaction. A record that does not
// decode fails the call with an error wrapping store.ErrCorrupt.
func (s *Store) StoredSchedules(ctx context.Context) ([]store.StoredSchedule, int64, error) {
	if err := s.begin(ctx); err != nil {
		return nil, 0, err
	}
	var all *redis.MapStringStringCmd
	var ver *redis.StringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		all = p.HGetAll(ctx, s.g.stored)
		ver = p.Get(ctx, s.g.storedVer)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, wrap("read stored schedules", err)
	}
	v, _ := ver.Int64()
	out := make([]store.StoredSchedule, 0, len(all.Val()))
	for field, val := range all.Val() {
		var r storedRecord
		if err := unmarshalRecord(val, &r); err != nil {
			return nil, 0, fmt.Errorf("redisstore: stored schedule %q: %w", field, errCorrupt)
		}
		out = append(out, store.StoredSchedule{Name: r.Name, Queue: r.Queue, Spec: r.Spec, Paused: r.Paused, CatchUp: r.CatchUp,
			UpdatedAt: time.UnixMilli(r.UpdatedMs), Job: store.NewJob{Queue: r.Queue, Kind: r.Kind, Args: r.Args, JobSpec: store.JobSpec{Meta: r.Meta, MaxRetries: r.MaxRetries, Timeout: time.Duration(r.Timeout), Retention: time.Duration(r.Retention), Priority: r.Priority, Group: r.Group}}})
	}
	slices.SortFunc(out, func(a, b store.StoredSchedule) int {
		return cmp.Or(cmp.Compare(a.Queue, b.Queue), cmp.Compare(a.Name, b.Name))
	})
	return out, v, nil
}

// SchedulesVersion returns the stored schedules' version: one GET.
func (s *Store) SchedulesVersion(ctx context.Context) (int64, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	v, err := s.rdb.Get(ctx, s.g.storedVer).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return v, wrap("read the schedules' version", err)
}
