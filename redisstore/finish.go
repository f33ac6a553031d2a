package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hopperq/hopper/internal/mstime"

	"github.com/hopperq/hopper"
)

// Finish ends claimed attempts (see hopper.Store): one script call per
// queue, all pipelined in one round trip. The fencing check is the unack
// member "ID|token", so a stale token changes nothing and reports
// ErrLeaseLost (ErrJobNotFound when the job is gone altogether).
//
// A job that Cancel flagged while it ran is not retried, snoozed or
// released: those outcomes move it to garbage, cancelled, like
// OutcomeCancel. An ack with a zero Retention uses the queue's
// QueueConfig.Retention; with none the job is deleted. Snooze and release
// do not count the attempt. Errors are recorded with the server's time; an
// OutcomeCancel without an Error records ErrCancelled's text.
func (s *Store) Finish(ctx context.Context, reqs []hopper.FinishRequest) ([]error, error) {
	for _, r := range reqs {
		if err := hopper.ValidateQueue(r.Queue); err != nil {
			return nil, err
		}
		if r.Outcome < hopper.OutcomeAck || r.Outcome > hopper.OutcomeCancel {
			return nil, fmt.Errorf("%w: FinishRequest for %q has outcome %v", hopper.ErrInvalidState, r.ID, r.Outcome)
		}
	}
	if len(reqs) == 0 {
		return nil, s.begin(ctx)
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	// A claim finished twice in one call: the first request wins, the
	// others report ErrLeaseLost as they would in a later call (the script
	// checks every request against the claims as they were when it began).
	out := make([]error, len(reqs))
	if len(reqs) > 1 {
		seen := make(map[hopper.LeaseRef]struct{}, len(reqs))
		for i, r := range reqs {
			ref := hopper.LeaseRef{Queue: r.Queue, ID: r.ID, Token: r.Token}
			if _, dup := seen[ref]; dup {
				out[i] = hopper.ErrLeaseLost
			}
			seen[ref] = struct{}{}
		}
	}
	order, groups := groupByQueue(len(reqs), func(i int) string { return reqs[i].Queue })
	calls := make([]*evalCall, len(order))
	sent := make([][]int, len(order)) // request indexes in the order the script sees them
	for gi, q := range order {
		idx := groups[q]
		var plain, other []int
		for _, i := range idx {
			if out[i] != nil { // a repeat of an earlier request
				continue
			}
			if isPlainAck(&reqs[i]) {
				plain = append(plain, i)
			} else {
				other = append(other, i)
			}
		}
		args := make([]any, 0, 1+2*len(plain)+5*len(other))
		args = append(args, len(plain))
		for _, i := range plain {
			args = append(args, reqs[i].ID, member(reqs[i].ID, reqs[i].Token))
		}
		for _, i := range other {
			args = appendFinishArgs(args, &reqs[i])
		}
		sent[gi] = append(plain, other...)
		calls[gi] = &evalCall{script: scriptFinish, keys: s.queueKeys(q).finishKeys, args: args}
	}
	s.runAll(ctx, calls, nil)
	for gi, q := range order {
		st, err := calls[gi].cmd.Int64Slice()
		idx := sent[gi]
		if err == nil && len(st) != len(idx) {
			err = fmt.Errorf("unexpected reply of %d values for %d requests", len(st), len(idx))
		}
		if err != nil {
			return nil, wrap("finish in "+strconv.Quote(q), err)
		}
		for j, i := range idx {
			out[i] = statusErr(st[j], &reqs[i])
		}
	}
	return out, nil
}

// isPlainAck reports whether r is an ack without a retention or result of
// its own: the common case, sent in two arguments.
func isPlainAck(r *hopper.FinishRequest) bool {
	return r.Outcome == hopper.OutcomeAck && r.Retention <= 0 && len(r.Result) == 0
}

// member is the unack set member of a claim: "id|token".
func member(id string, token uint64) string {
	return id + "|" + strconv.FormatUint(token, 10)
}

// appendFinishArgs appends the five arguments of a request other than a
// plain ack.
func appendFinishArgs(args []any, r *hopper.FinishRequest) []any {
	tok := member(r.ID, r.Token)
	if r.Outcome == hopper.OutcomeAck {
		var res []byte
		if r.Result != nil {
			res = r.Result
		}
		return append(args, int(r.Outcome), r.ID, tok, mstime.Ceil(r.Retention), res)
	}
	var rest []byte
	if r.Error != nil && r.Outcome != hopper.OutcomeSnooze && r.Outcome != hopper.OutcomeRelease {
		rest = encodeErrorRest(r.Error)
	} else if r.Outcome == hopper.OutcomeCancel {
		rest = encodeErrorRest(&hopper.AttemptError{Error: hopper.ErrCancelled.Error()})
	}
	return append(args, int(r.Outcome), r.ID, tok, mstime.Ceil(r.Delay), rest)
}

// statusErr turns a script status into the per-request error.
func statusErr(st int64, r *hopper.FinishRequest) error {
	switch st {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%w: job %q of queue %q, token %d", hopper.ErrLeaseLost, r.ID, r.Queue, r.Token)
	default:
		return fmt.Errorf("%w: job %q of queue %q", hopper.ErrJobNotFound, r.ID, r.Queue)
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
