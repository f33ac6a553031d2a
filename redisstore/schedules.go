package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
	"github.com/vmihailenco/msgpack/v5"
)

// scheduleRecord is ScheduleInfo as stored; LastTick lives in the queue's
// periodic ticks hash, where Enqueue records it.
type scheduleRecord struct {
	Name  string    `msgpack:"n"`
	Spec  string    `msgpack:"s"`
	Queue string    `msgpack:"q"`
	Kind  string    `msgpack:"k"`
	Next  time.Time `msgpack:"x"`
	Seen  time.Time `msgpack:"a,omitempty"`
}

// decodeSchedule decodes a schedule's stored value; any malformed value
// gives an error wrapping errCorrupt. LastTick is left zero.
func decodeSchedule(v string) (store.ScheduleInfo, error) {
	var r scheduleRecord
	if err := unmarshalRecord(v, &r); err != nil {
		return store.ScheduleInfo{}, fmt.Errorf("redisstore: decode schedule: %w", errCorrupt)
	}
	return store.ScheduleInfo{Name: r.Name, Spec: r.Spec, Queue: r.Queue, Kind: r.Kind, Next: r.Next, SeenAt: r.Seen}, nil
}

// RegisterSchedules records periodic schedules for inspection (see
// store.Store), in one command; a schedule is identified by its queue and
// name. When the list holds stored schedules (ScheduleInfo.Stored) it is
// one script (lua/sched_reg.lua), which records a stored one only while
// it is stored: a scheduler that registers one after it was deleted,
// before it saw the deletion, leaves no registration behind.
func (s *Store) RegisterSchedules(ctx context.Context, list []store.ScheduleInfo) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	if err := store.ValidateSchedules(list); err != nil {
		return err
	}
	if len(list) == 0 {
		return nil
	}
	stored := false
	for _, si := range list {
		stored = stored || si.Stored
	}
	step := 2
	if stored {
		step = 3
	}
	args := make([]any, 0, step*len(list))
	for _, si := range list {
		b, err := msgpack.Marshal(&scheduleRecord{Name: si.Name, Spec: si.Spec, Queue: si.Queue, Kind: si.Kind, Next: si.Next, Seen: si.SeenAt})
		if err != nil {
			return fmt.Errorf("redisstore: encode schedule %q: %w", si.Name, err)
		}
		args = append(args, si.Queue+":"+si.Name, b)
		if stored {
			flag := "0"
			if si.Stored {
				flag = "1"
			}
			args = append(args, flag)
		}
	}
	if !stored {
		return wrap("register schedules", s.rdb.HSet(ctx, s.g.schedules, args...).Err())
	}
	// Both keys share the store's hash tag: one slot on a Cluster.
	return wrap("register schedules", s.run(ctx, fullScript("sched_reg"), []string{s.g.schedules, s.g.stored}, args...).Err())
}

// ListSchedules lists the registered schedules with the last tick each one
// enqueued, sorted by name (then queue).
func (s *Store) ListSchedules(ctx context.Context) ([]store.ScheduleInfo, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	m, err := s.rdb.HGetAll(ctx, s.g.schedules).Result()
	if err != nil {
		return nil, wrap("schedules", err)
	}
	out := make([]store.ScheduleInfo, 0, len(m))
	for _, v := range m {
		si, err := decodeSchedule(v)
		if err != nil {
			return nil, err
		}
		out = append(out, si)
	}
	// Last ticks: one HMGET per queue, pipelined (queues live on different
	// slots).
	byQueue := map[string][]int{}
	for i, si := range out {
		if store.ValidateQueue(si.Queue) == nil {
			q := si.Queue
			if n := s.partCount(q); n > 0 {
				q = store.PartitionName(q, partIndex(si.Name, n)) // where its ticks go (route)
			}
			byQueue[q] = append(byQueue[q], i)
		}
	}
	cmds := map[string]*redis.SliceCmd{}
	if len(byQueue) > 0 {
		_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for q, idx := range byQueue {
				names := make([]string, len(idx))
				for j, i := range idx {
					names[j] = out[i].Name
				}
				cmds[q] = p.HMGet(ctx, s.queueKeys(q).ticks, names...)
			}
			return nil
		})
		if err != nil {
			return nil, wrap("schedules", err)
		}
	}
	for q, idx := range byQueue {
		for j, v := range cmds[q].Val() {
			if str, ok := v.(string); ok {
				if ms, err := strconv.ParseInt(str, 10, 64); err == nil {
					out[idx[j]].LastTick = time.UnixMilli(ms)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b store.ScheduleInfo) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Queue, b.Queue)
	})
	return out, nil
}
