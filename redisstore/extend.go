package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Extend pushes lease deadlines to the server's now plus lease (see
// store.Store): one script call per queue, pipelined. A ref whose token is
// not current is not extended and reports Held false; Cancel reports a
// Cancel call whether or not the lease is held. An invalid ref, or one
// whose queue's script failed, reports Err.
func (s *Store) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	if lease < store.MinLease {
		return nil, fmt.Errorf("%w: Extend lease is %v, want at least 1ms", store.ErrInvalidConfig, lease)
	}
	ms := mstime.Ceil(lease)
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, nil
	}
	out := make([]store.LeaseStatus, len(refs))
	order, groups := groupByQueue(len(refs), func(i int) string { return refs[i].Queue })
	calls := make([]*evalCall, 0, len(order))
	sent := make([][]int, 0, len(order))
	for _, q := range order {
		var idx []int
		for _, i := range groups[q] {
			if err := refs[i].Validate(); err != nil {
				out[i].Err = err
				continue
			}
			idx = append(idx, i)
		}
		if len(idx) == 0 {
			continue
		}
		args := make([]any, 0, 1+2*len(idx))
		args = append(args, ms)
		for _, i := range idx {
			var report []byte
			if p := refs[i].Progress; p != nil {
				report = encodeProgress(p)
			}
			args = append(args, refs[i].ID, strconv.FormatUint(refs[i].Token, 10), report)
		}
		calls = append(calls, s.queueCall(fullScript("extend"), q, args...))
		sent = append(sent, idx)
	}
	if len(calls) > 0 {
		s.runAll(ctx, calls, nil)
	}
	// A queue whose script failed reports an error for its own refs only.
	for ci, c := range calls {
		st, err := c.cmd.Int64Slice()
		idx := sent[ci]
		if err == nil && len(st) != len(idx)+1 {
			err = fmt.Errorf("unexpected reply of %d values for %d leases", len(st), len(idx))
		}
		if err != nil {
			err = wrap("extend in "+strconv.Quote(refs[idx[0]].Queue), err)
			for _, i := range idx {
				out[i].Err = err
			}
			continue
		}
		deadline := msTime(st[0])
		for j, i := range idx {
			held := st[j+1]&1 != 0
			out[i] = store.LeaseStatus{Held: held, Cancel: st[j+1]&2 != 0}
			if held {
				out[i].Deadline = deadline
			}
		}
	}
	return out, nil
}
