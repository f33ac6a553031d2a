package redisstore

import (
	"context"
	"fmt"
)

// groupsMoveBatch is how many jobs one call of groups_move.lua moves: a
// few milliseconds of the server's time a call. A variable so that tests
// can make a queue's move take several calls.
var groupsMoveBatch = 2000

// migrateGroupLists is step 1 -> 2: every queue (and partition) gets the
// mark that makes it push its grouped jobs to a list per group, and the
// jobs of layout 1's sorted set move to those lists, groupsMoveBatch a
// call, from the set's end to the lists' front, so that each group keeps
// its order while producers and workers of this release run. A call moves
// what producers of an older release still pushed to the set as well;
// what they push after the last call stays in the set, where reads take
// it first until claims have drained it (lua/groups/store.lua).
func migrateGroupLists(ctx context.Context, s *Store, dry bool, progress func(string)) ([]string, error) {
	queues, err := s.migrationQueues(ctx)
	if err != nil {
		return nil, err
	}
	var changes []string
	for _, q := range queues {
		k := s.queueKeys(q)
		if dry {
			n, err := s.rdb.ZCard(ctx, k.all[keyIndex["g_ready"]]).Result()
			if err != nil {
				return changes, fmt.Errorf("queue %q: %w", q, wrap("count grouped jobs", err))
			}
			if n > 0 {
				line := fmt.Sprintf("queue %s: would move %d ready grouped jobs to their groups' lists", q, n)
				changes = append(changes, line)
				progress(line)
			}
			continue
		}
		moved := 0
		for {
			r, err := s.runQ(ctx, fullScript("groups_move"), q, groupsMoveBatch).Int64Slice()
			if err != nil {
				return changes, fmt.Errorf("queue %q: %w", q, wrap("move grouped jobs", err))
			}
			moved += int(r[0])
			if r[1] == 0 {
				break
			}
			if migrateHook != nil {
				if err := migrateHook(q); err != nil {
					return changes, err
				}
			}
		}
		if moved > 0 {
			line := fmt.Sprintf("queue %s: moved %d ready grouped jobs to their groups' lists", q, moved)
			changes = append(changes, line)
			progress(line)
		}
	}
	return changes, nil
}
