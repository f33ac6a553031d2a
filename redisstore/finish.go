package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Finish ends claimed attempts (see store.Store): one script call per
// queue, all pipelined in one round trip. The fencing check is the unack
// member "ID|token", so a stale token changes nothing and reports
// ErrLeaseLost (ErrJobNotFound when the job is gone altogether).
//
// A job that Cancel flagged while it ran is finished with
// Outcome.OnCancelled. An ack with a zero Retention uses the queue's
// QueueConfig.Retention; with none the job is deleted. An invalid request,
// or one whose queue's script failed, gets its own error; the others are
// applied. Snooze and release
// do not count the attempt. Errors are recorded with the server's time; an
// OutcomeCancel without an Error records ErrCancelled's text.
func (s *Store) Finish(ctx context.Context, reqs []store.FinishRequest) ([]error, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	// An invalid request gets its own error. A claim finished twice in one
	// call: the first request wins, the others report ErrLeaseLost as they
	// would in a later call (the script checks every request against the
	// claims as they were when it began).
	out := make([]error, len(reqs))
	seen := make(map[store.LeaseRef]struct{}, len(reqs))
	for i := range reqs {
		if err := reqs[i].Validate(); err != nil {
			out[i] = err
			continue
		}
		ref := reqs[i].Ref()
		if _, dup := seen[ref]; dup {
			out[i] = fmt.Errorf("%w: job %q of queue %q finished twice in one call", store.ErrLeaseLost, ref.ID, ref.Queue)
		}
		seen[ref] = struct{}{}
	}
	order, groups := groupByQueue(len(reqs), func(i int) string { return reqs[i].Queue })
	calls := make([]*evalCall, 0, len(order))
	sent := make([][]int, 0, len(order)) // request indexes in the order each script sees them
	for _, q := range order {
		var plain, other []int
		for _, i := range groups[q] {
			if out[i] != nil { // invalid, or a repeat of an earlier request
				continue
			}
			if isPlainAck(&reqs[i]) {
				plain = append(plain, i)
			} else {
				other = append(other, i)
			}
		}
		args := make([]any, 0, 1+4*len(plain)+7*len(other))
		args = append(args, len(plain))
		for _, i := range plain {
			r := &reqs[i]
			args = append(args, r.ID, member(r.ID, r.Token), r.Kind, r.Attempt)
		}
		for _, i := range other {
			args = appendFinishArgs(args, &reqs[i])
		}
		if len(plain)+len(other) == 0 {
			continue
		}
		sent = append(sent, append(plain, other...))
		script := scriptFinish
		if s.wfLocal() && anyTask(reqs, groups[q]) {
			script = scriptFinishLocal
		}
		calls = append(calls, &evalCall{script: script, keys: s.queueKeys(q).finishKeys, args: args})
	}
	switch {
	case len(calls) == 0:
	case s.opts.Replicas > 0:
		s.runDurable(ctx, calls, nil)
	default:
		s.runAll(ctx, calls, nil)
	}
	// A queue whose script failed (its shard unreachable, say) fails its
	// own requests only.
	var ends []endRecord
	for ci, c := range calls {
		st, err := c.cmd.Slice()
		idx := sent[ci]
		if err == nil && (len(st) < len(idx)+1 || (len(st)-len(idx)-1)%2 != 0) {
			err = fmt.Errorf("unexpected reply of %d values for %d requests", len(st), len(idx))
		}
		if err != nil {
			err = wrap("finish in "+strconv.Quote(reqs[idx[0]].Queue), err)
			for _, i := range idx {
				out[i] = err
			}
			continue
		}
		for j, i := range idx {
			code, _ := st[j].(int64)
			out[i] = statusErr(code, &reqs[i])
		}
		if rest := st[len(idx)+1:]; len(rest) > 0 {
			ends = append(ends, parseEnds(reqs[idx[0]].Queue, stringsOf(rest))...)
		}
	}
	// Workflow tasks ended: apply their ends to their workflows before
	// returning, so that the dependents they release are claimable now. A
	// failure here loses nothing (the records wait for a sweeper), so the
	// requests keep their outcome.
	if len(ends) > 0 {
		_ = s.applyEnds(ctx, ends)
	}
	return out, nil
}

// anyTask reports whether one of reqs[idx] may end a workflow task's job
// (its ID has a '~', as store.TaskJobID's have).
func anyTask(reqs []store.FinishRequest, idx []int) bool {
	for _, i := range idx {
		if strings.IndexByte(reqs[i].ID, '~') >= 0 {
			return true
		}
	}
	return false
}

// isPlainAck reports whether r is an ack without a retention or result of
// its own: the common case, sent in two arguments.
func isPlainAck(r *store.FinishRequest) bool {
	return r.Outcome == store.OutcomeAck && r.Retention <= 0 && len(r.Result) == 0
}

// member is the unack set member of a claim: "id|token".
func member(id string, token uint64) string {
	return id + "|" + strconv.FormatUint(token, 10)
}

// appendFinishArgs appends the seven arguments of a request other than a
// plain ack.
func appendFinishArgs(args []any, r *store.FinishRequest) []any {
	tok := member(r.ID, r.Token)
	if r.Outcome == store.OutcomeAck {
		var res []byte
		if r.Result != nil {
			res = r.Result
		}
		return append(args, int(r.Outcome), r.ID, tok, mstime.Ceil(r.Retention), res, r.Kind, r.Attempt)
	}
	var rest []byte
	if r.Error != nil && r.Outcome != store.OutcomeSnooze && r.Outcome != store.OutcomeRelease {
		rest = encodeErrorRest(r.Error)
	} else if r.Outcome == store.OutcomeCancel {
		rest = encodeErrorRest(&store.AttemptError{Error: store.ErrCancelled.Error()})
	} else if r.Outcome == store.OutcomeSnooze && r.Hold > 0 {
		rest = strconv.AppendInt(nil, mstime.Ceil(r.Hold), 10)
	}
	return append(args, int(r.Outcome), r.ID, tok, mstime.Ceil(r.Delay), rest, r.Kind, r.Attempt)
}

// statusErr turns a script status into the per-request error.
func statusErr(st int64, r *store.FinishRequest) error {
	switch st {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%w: job %q of queue %q, token %d", store.ErrLeaseLost, r.ID, r.Queue, r.Token)
	default:
		return fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, r.ID, r.Queue)
	}
}

// groupByQueue groups n requests by queue: the queues in order of first
// appearance, and the request indexes of each.
func groupByQueue(n int, queue func(int) string) ([]string, map[string][]int) {
	var order []string
	groups := make(map[string][]int, 1)
	for i := range n {
		q := queue(i)
		if _, ok := groups[q]; !ok {
			order = append(order, q)
		}
		groups[q] = append(groups[q], i)
	}
	return order, groups
}
