package upgradetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/hopperq/hopper/internal/upgradetest/evidence"
	"github.com/redis/go-redis/v9"
)

// snapshot is the evidence in Redis at one moment.
type snapshot struct {
	produced                    map[string][]string // class → payload IDs
	ok, failed                  map[string]int64    // payload ID → runs
	early, overlap, earlyTask   map[string]int64
	ran, worker                 map[string]int64 // version, worker → runs
	enqueued, enqueueErrors     map[string]int64 // producer → calls
	ticks                       map[int64]int64  // tick (Unix ms) → runs
	groups                      map[string][]int // group → seqs in completion order
	okRuns, failedRuns, tickRun int64
}

// read reads every key of the evidence.
func read(ctx context.Context, rdb *redis.Client) (*snapshot, error) {
	s := &snapshot{produced: map[string][]string{}, groups: map[string][]int{}, ticks: map[int64]int64{}}
	for _, class := range evidence.Classes {
		ids, err := rdb.SMembers(ctx, evidence.Produced(class)).Result()
		if err != nil {
			return nil, err
		}
		slices.Sort(ids)
		s.produced[class] = ids
	}
	for key, m := range map[string]*map[string]int64{
		evidence.KeyOK: &s.ok, evidence.KeyFailed: &s.failed, evidence.KeyEarly: &s.early,
		evidence.KeyOverlap: &s.overlap, evidence.KeyEarlyTask: &s.earlyTask,
		evidence.KeyRan: &s.ran, evidence.KeyWorker: &s.worker,
		evidence.KeyEnqueued: &s.enqueued, evidence.KeyEnqueueErrors: &s.enqueueErrors,
	} {
		h, err := hashInts(ctx, rdb, key)
		if err != nil {
			return nil, err
		}
		*m = h
	}
	ticks, err := hashInts(ctx, rdb, evidence.KeyTicks)
	if err != nil {
		return nil, err
	}
	for k, n := range ticks {
		ms, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: field %q: %w", evidence.KeyTicks, k, err)
		}
		s.ticks[ms] = n
		s.tickRun += n
	}
	for _, n := range s.ok {
		s.okRuns += n
	}
	for _, n := range s.failed {
		s.failedRuns += n
	}
	for _, id := range s.produced[evidence.Grouped] {
		s.groups[groupOf(id)] = nil
	}
	for g := range s.groups {
		vals, err := rdb.LRange(ctx, evidence.GroupOrder(g), 0, -1).Result()
		if err != nil {
			return nil, err
		}
		seqs := make([]int, len(vals))
		for i, v := range vals {
			if seqs[i], err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("%s: %q: %w", evidence.GroupOrder(g), v, err)
			}
		}
		s.groups[g] = seqs
	}
	return s, nil
}

func hashInts(ctx context.Context, rdb *redis.Client, key string) (map[string]int64, error) {
	h, err := rdb.HGetAll(ctx, key).Result()
	if err != nil {
		return nil, err
	}
	m := make(map[string]int64, len(h))
	for k, v := range h {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: field %q: %w", key, k, err)
		}
		m[k] = n
	}
	return m, nil
}

// groupOf returns the group of a grouped job's payload ID, which the
// producer names "<producer>-<seq>" and puts in group "<producer>-g<seq%3>".
func groupOf(id string) string {
	i := len(id) - 1
	for i >= 0 && id[i] != '-' {
		i--
	}
	seq, _ := strconv.Atoi(id[i+1:])
	return fmt.Sprintf("%s-g%d", id[:i], seq%3)
}

// jobs returns how many jobs were produced (workflow tasks included,
// workflows themselves not).
func (s *snapshot) jobs() int {
	n := 0
	for class, ids := range s.produced {
		if class != evidence.Workflow {
			n += len(ids)
		}
	}
	return n
}

// succeeding returns the payload IDs expected to succeed once each.
func (s *snapshot) succeeding() []string {
	var ids []string
	for _, class := range []string{evidence.Plain, evidence.Delayed, evidence.Retried, evidence.Grouped, evidence.Task} {
		ids = append(ids, s.produced[class]...)
	}
	return ids
}

// pending describes what has not finished yet: succeeding jobs without a
// success and doomed jobs short of their two attempts.
func (s *snapshot) pending() (waiting int, example string) {
	for _, id := range s.succeeding() {
		if s.ok[id] == 0 {
			waiting++
			example = id
		}
	}
	for _, id := range s.produced[evidence.Doomed] {
		if s.failed[id] < doomedAttempts {
			waiting++
			example = id
		}
	}
	return waiting, example
}

// doomedAttempts is how often a doomed job runs: MaxRetries 1 is one
// attempt and one retry.
const doomedAttempts = 2

// inFlight counts, per class, the jobs produced but not yet ended: no
// success (a doomed job: short of its attempts); for workflows, those
// whose last task has not succeeded.
func (s *snapshot) inFlight() map[string]int {
	m := map[string]int{}
	for _, class := range evidence.Classes {
		for _, id := range s.produced[class] {
			var ended bool
			switch class {
			case evidence.Doomed:
				ended = s.failed[id] >= doomedAttempts
			case evidence.Workflow:
				ended = s.ok[id+"~z"] > 0
			default:
				ended = s.ok[id] > 0
			}
			if !ended {
				m[class]++
			}
		}
	}
	return m
}
