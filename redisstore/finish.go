package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
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
func (s *Store) Finish(ctx context.Context, reqs []store.AttemptEnd) ([]error, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	// An invalid request gets its own error. A claim finished twice in one
	// call: the first request wins, the others report ErrLeaseLost (the
	// script checks every request against the claims as they were when it
	// began; a later call could find the first applied: ends.lua, lost).
	out := make([]error, len(reqs))
	seen := seenPool.Get().(map[store.LeaseRef]struct{})
	defer putSeen(seen)
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
	sent := make([][]int, 0, len(order))  // request indexes in the order each script sees them
	paired := make([]bool, 0, len(order)) // whether each call's plain acks went as pairs
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
		// A queue whose last call that could tell took a lean way, which
		// writes no events, gets its plain acks as pairs: without the kind
		// and attempt only events use (two arguments a job fewer for Redis
		// to parse and make Lua strings of), the count negated. Should the
		// mark be gone, finish.lua reads them for its events.
		pairs := s.queueKeys(q).lean.Load()
		count := len(plain)
		if pairs {
			count = -count
		}
		args = append(args, count)
		mems := members(reqs, plain)
		for k, i := range plain {
			// Pointers (args.go): reqs and mems outlive the call.
			r := &reqs[i]
			args = append(args, (*strArg)(&r.ID), (*strArg)(&mems[k]))
			if !pairs {
				args = append(args, (*strArg)(&r.Kind), r.Attempt)
			}
		}
		for _, i := range other {
			args = appendFinishArgs(args, &reqs[i])
		}
		if len(plain)+len(other) == 0 {
			continue
		}
		sent = append(sent, append(plain, other...))
		paired = append(paired, pairs)
		calls = append(calls, s.finishCall(q, reqs, groups[q], args))
	}
	if len(calls) > 0 {
		s.sendShaped(ctx, calls, nil, true)
	}
	// A queue whose script failed (its shard unreachable, say) fails its
	// own requests only.
	var ends []endRecord
	var rels []wfRelease
	var marks []string // the sweeper's marks of the calls that left releases (chkMark)
	for ci, c := range calls {
		if done, lean := endsAllDone(c.cmd); done {
			// Every request ended as asked, nothing recorded: their out
			// stay nil.
			s.finishedLean(c.queue, lean, paired[ci])
			continue
		}
		st, err := c.cmd.Slice()
		idx := sent[ci]
		var e []endRecord
		var r []wfRelease
		lean := false
		if err == nil {
			e, r, lean, err = parseFinishTail(reqs[idx[0]].Queue, st, len(idx))
		}
		if err == nil {
			s.finishedLean(c.queue, lean, paired[ci])
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
		ends, rels = append(ends, e...), append(rels, r...)
		marks = appendMarks(marks, r)
	}
	// Workflow tasks ended: apply their ends to their workflows before
	// returning, so that the dependents they release are claimable now. A
	// failure here loses nothing (the records wait for a sweeper, the
	// releases are in their workflows' rel sets), so the requests keep
	// their outcome.
	if len(ends) > 0 {
		_ = s.applyEnds(ctx, ends)
	}
	if len(rels) > 0 && !s.wfDropRels.Load() && s.release(ctx, rels) == nil && s.confirm(ctx, rels) == nil {
		// finish.lua marked their workflows for a sweeper (wf/local.lua):
		// each call each workflow with the first task it left.
		for _, m := range marks {
			s.unmarkCheck(ctx, m)
		}
	}
	return out, nil
}

// seenPool recycles Finish's sets of the claims a call finishes: a new map
// a call was a twentieth of the bytes a drained job allocated.
var seenPool = sync.Pool{New: func() any { return make(map[store.LeaseRef]struct{}) }}

// putSeen empties seen and gives it back to seenPool, unless a call of
// more than maxFinishSeen requests grew it: clearing a map costs its size.
func putSeen(seen map[store.LeaseRef]struct{}) {
	if len(seen) > maxFinishSeen {
		return
	}
	clear(seen)
	seenPool.Put(seen)
}

// maxFinishSeen is the most requests whose set putSeen keeps.
const maxFinishSeen = 1024

// finishedLean notes what a finish call of queue q that ran told of its
// lean ways (queueKeys.lean): they serve it when the call took the lean
// way or its fast way said so; they do not when it did not though its
// plain acks went as pairs (sent while they were believed to), so that
// the next calls send the kinds and attempts their events need. A call
// without plain acks as pairs that went the long way tells nothing: it
// may not have asked for the lean way.
func (s *Store) finishedLean(q string, lean, paired bool) {
	if lean {
		s.queueKeys(q).lean.Store(true)
	} else if paired {
		s.queueKeys(q).lean.Store(false)
	}
}

// appendMarks appends to marks the sweeper's mark of each workflow of
// one finish call's releases r (chkMark: its first task there, as
// wfsettle.lua names it). A call that released nothing costs nothing.
func appendMarks(marks []string, r []wfRelease) []string {
	if len(r) == 0 {
		return marks
	}
	seen := make(map[string]bool, 1)
	for _, x := range r {
		if !seen[x.wf] {
			seen[x.wf] = true
			marks = append(marks, chkMark(x.wf, x.task))
		}
	}
	return marks
}

// finishCall returns the finish.lua call for the requests idx of queue q:
// the variant of the queue's shape, with the wf slot of the batch. A batch
// that may end a workflow task's job (its ID has a '~', as
// store.TaskJobID's have) records the ends for delivery, or on one server
// (wfLocal) applies them in the same step, given the keys of every
// workflow of the batch.
func (s *Store) finishCall(q string, reqs []store.AttemptEnd, idx []int, args []any) *evalCall {
	var wfs []string
	seen := map[string]bool{}
	for _, i := range idx {
		if wf, _, ok := store.ParseTaskJobID(reqs[i].ID); ok && !seen[wf] {
			seen[wf] = true
			wfs = append(wfs, wf)
		}
	}
	if len(wfs) == 0 {
		return shapedCall("finish", q, variant{}, nil, args...)
	}
	if !s.wfLocal() {
		return shapedCall("finish", q, variant{wf: "record"}, nil, args...)
	}
	extra := make([]string, 0, 8*len(wfs))
	for _, wf := range wfs {
		extra = append(extra, s.wfKeys(wf)...)
	}
	return shapedCall("finish", q, variant{wf: "local"}, extra, args...)
}

// endsAllDone reports whether finish call cmd's reply says, in one
// value, that every request ended as asked and that the call recorded no
// task end and left no task being released: "L", the lean way's
// (lua/ends_lean.lua) or the fast way's on a queue a lean way serves
// (lua/ends_fast.lua), with lean true, or 0 (lua/ends.lua: ends_reply).
func endsAllDone(cmd *redis.Cmd) (done, lean bool) {
	switch v := replyOf(cmd).(type) {
	case string:
		return v == "L", v == "L"
	case int64:
		return v == 0, false
	}
	return false, false
}

// parseFinishTail reads what finish.lua's reply st holds after the n
// requests' statuses: the workflow task ends it recorded (a count, then
// job ID and record pairs), then the tasks it left being released
// (workflow, task, queue and payload each). lean says a lean way serves
// the queue and the call recorded and left nothing (lua/ends_lean.lua,
// lua/ends_fast.lua): "L" in the count's place.
func parseFinishTail(queue string, st []any, n int) (ends []endRecord, rels []wfRelease, lean bool, err error) {
	if len(st) < n+1 {
		return nil, nil, false, fmt.Errorf("unexpected reply of %d values for %d requests", len(st), n)
	}
	if l, _ := st[n].(string); l == "L" && len(st) == n+1 {
		return nil, nil, true, nil
	}
	c, _ := st[n].(int64)
	rest := st[n+1:]
	if c < 0 || int(2*c) > len(rest) || (len(rest)-int(2*c))%4 != 0 {
		return nil, nil, false, fmt.Errorf("unexpected reply of %d values for %d requests and %d task ends", len(st), n, c)
	}
	if c > 0 {
		ends = parseEnds(queue, stringsOf(rest[:2*c]))
	}
	v := stringsOf(rest[2*c:])
	for i := 0; i+3 < len(v); i += 4 {
		rels = append(rels, wfRelease{wf: v[i], task: v[i+1], queue: v[i+2], payload: v[i+3]})
	}
	return ends, rels, false, nil
}

// isPlainAck reports whether r is an ack without a retention or result of
// its own: the common case, sent in two arguments.
func isPlainAck(r *store.AttemptEnd) bool {
	return r.Outcome == store.OutcomeAck && r.Retention <= 0 && len(r.Result) == 0
}

// member is the unack set member of a claim: "id|token".
func member(id string, token uint64) string {
	var buf [64]byte // on the stack: one allocation, the string
	return string(appendMember(buf[:0], id, token))
}

// appendMember appends member(id, token) to b. 21 bytes hold the '|' and
// the longest token.
func appendMember(b []byte, id string, token uint64) []byte {
	b = append(b, id...)
	b = append(b, '|')
	return strconv.AppendUint(b, token, 10)
}

// members returns the unack members of the requests reqs[i], i in idx:
// substrings of one string, written in place by a strings.Builder, one
// allocation for all of them where a member each took one.
func members(reqs []store.AttemptEnd, idx []int) []string {
	if len(idx) == 0 {
		return nil
	}
	size := 0
	for _, i := range idx {
		size += len(reqs[i].ID) + 21
	}
	var b strings.Builder
	b.Grow(size)
	out := make([]string, len(idx))
	ends := make([]int, len(idx))
	var tok [20]byte
	for k, i := range idx {
		b.WriteString(reqs[i].ID)
		b.WriteByte('|')
		b.Write(strconv.AppendUint(tok[:0], reqs[i].Token, 10))
		ends[k] = b.Len()
	}
	all := b.String()
	from := 0
	for k, end := range ends {
		out[k] = all[from:end]
		from = end
	}
	return out
}

// appendFinishArgs appends the seven arguments of a request other than a
// plain ack.
func appendFinishArgs(args []any, r *store.AttemptEnd) []any {
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
func statusErr(st int64, r *store.AttemptEnd) error {
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
