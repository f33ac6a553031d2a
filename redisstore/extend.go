package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/internal/mstime"

	"github.com/hopperq/hopper"
)

// Extend pushes lease deadlines to the server's now plus lease (see
// hopper.Store): one script call per queue, pipelined. A ref whose token is
// not current is not extended and reports Held false; Cancel reports a
// Cancel call whether or not the lease is held.
func (s *Store) Extend(ctx context.Context, refs []hopper.LeaseRef, lease time.Duration) ([]hopper.LeaseStatus, error) {
	for _, r := range refs {
		if err := hopper.ValidateQueue(r.Queue); err != nil {
			return nil, err
		}
	}
	ms := mstime.Ceil(lease)
	if ms < 1 {
		return nil, fmt.Errorf("%w: Extend lease is %v, want at least 1ms", hopper.ErrInvalidConfig, lease)
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, nil
	}
	order, groups := groupByQueue(len(refs), func(i int) string { return refs[i].Queue })
	calls := make([]*evalCall, len(order))
	for gi, q := range order {
		idx := groups[q]
		args := make([]any, 0, 1+2*len(idx))
		args = append(args, ms)
		for _, i := range idx {
			args = append(args, refs[i].ID, strconv.FormatUint(refs[i].Token, 10))
		}
		calls[gi] = &evalCall{script: scriptExtend, keys: s.queueKeys(q).extendKeys, args: args}
	}
	s.runAll(ctx, calls, nil)
	out := make([]hopper.LeaseStatus, len(refs))
	for gi, q := range order {
		st, err := calls[gi].cmd.Int64Slice()
		idx := groups[q]
		if err == nil && len(st) != len(idx)+1 {
			err = fmt.Errorf("unexpected reply of %d values for %d leases", len(st), len(idx))
		}
		if err != nil {
			return nil, wrap("extend in "+strconv.Quote(q), err)
		}
		deadline := msTime(st[0])
		for j, i := range idx {
			held := st[j+1]&1 != 0
			out[i] = hopper.LeaseStatus{Held: held, Cancel: st[j+1]&2 != 0}
			if held {
				out[i].Deadline = deadline
			}
		}
	}
	return out, nil
}
