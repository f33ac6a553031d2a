package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Claim moves up to req.Max ready jobs to unack (see store.Store) with one
// script call, whatever the batch size: the lease deadline, the tokens and
// the claim time come from the server. A paused queue returns no job and
// RetryIn = Config.PausedRetry; a MaxRunning cap or a rate limit that held
// jobs back sets RetryIn to when trying again may succeed. A rate limit
// (store.RateTerms, kept in the queue's marks by SetQueueConfig) sets
// StartWithin, and in the smooth mode StartAfter. The claimed records
// carry the error history of earlier attempts. The jobs of this Store's
// earlier claims on the queue whose reply was lost come first, with their
// claims' tokens and their leases renewed (takeback.go); they count
// towards req.Max.
func (s *Store) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	if err := req.Validate(); err != nil {
		return store.ClaimResult{}, err
	}
	if err := s.begin(ctx, req.Queue); err != nil {
		return store.ClaimResult{}, s.closedCheck(ctx, err)
	}
	s.refreshShared(ctx)
	// A failed take-back is tried again at the next Claim; this one goes
	// on (takeBack kept what it took, which must run).
	back, _ := s.takeBack(ctx, req)
	if len(back.Jobs) >= req.Max {
		return back, nil
	}
	var res store.ClaimResult
	var err error
	more := req
	more.Max -= len(back.Jobs)
	if n := s.partCount(req.Queue); n > 0 {
		res, err = s.claimParts(ctx, more, n)
	} else {
		res, err = s.claimOne(ctx, req.Queue, more)
	}
	if len(back.Jobs) > 0 {
		if res.StartAfter != nil {
			res.StartAfter = append(make([]time.Duration, len(back.Jobs), len(back.Jobs)+len(res.StartAfter)), res.StartAfter...)
		}
		res.Jobs = append(back.Jobs, res.Jobs...)
		res.RetryIn = 0
		return res, nil
	}
	return res, s.closedCheck(ctx, err)
}

// claimParts claims from the n partitions of req.Queue in turn, until it
// has req.Max jobs or asked every partition of its plan (claimPlan: the
// partitions signalled or left with jobs, from where the Store's rotation
// over the queue stands; every partition when none is). A partition that
// came up short sends the rotation on to the one that gave jobs. A
// partition that fails is passed over; its error is returned when no
// partition gave a job.
func (s *Store) claimParts(ctx context.Context, req store.ClaimOpts, n int) (store.ClaimResult, error) {
	pl := s.claimPlan(req.Queue, n)
	var out store.ClaimResult
	var firstErr error
	for t, p := range pl.order {
		if len(out.Jobs) >= req.Max {
			break
		}
		r := req
		r.Queue = store.PartitionName(req.Queue, p)
		r.Max = req.Max - len(out.Jobs)
		res, err := s.claimOne(ctx, req.Queue, r)
		s.partClaimed(req.Queue, p, pl.marks[t], err == nil && len(res.Jobs) < r.Max && res.RetryIn == 0,
			err == nil && p != pl.start && len(res.Jobs) > 0)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if res.StartAfter != nil && out.StartAfter == nil {
			out.StartAfter = make([]time.Duration, len(out.Jobs), req.Max)
		}
		if out.StartAfter != nil {
			out.StartAfter = append(out.StartAfter, res.StartAfter...)
			out.StartAfter = append(out.StartAfter, make([]time.Duration, len(res.Jobs)-len(res.StartAfter))...)
		}
		out.Jobs = append(out.Jobs, res.Jobs...)
		if res.StartWithin > 0 && (out.StartWithin == 0 || res.StartWithin < out.StartWithin) {
			out.StartWithin = res.StartWithin
		}
		if res.RetryIn > 0 && (out.RetryIn == 0 || res.RetryIn < out.RetryIn) {
			out.RetryIn = res.RetryIn
		}
	}
	if len(out.Jobs) > 0 {
		out.RetryIn = 0
		return out, nil
	}
	return out, firstErr
}

// claimOne claims from one queue or partition, for a Claim on queue
// base (the partition's queue, or the queue itself).
func (s *Store) claimOne(ctx context.Context, base string, req store.ClaimOpts) (store.ClaimResult, error) {
	lease := mstime.Ceil(req.Lease)
	// The lean way (lua/claim_lean.lua) is asked for only while the last
	// call of the queue that could tell said a lean way serves it
	// (queueKeys.lean): it costs a claim of any other queue nothing.
	qk := s.queueKeys(req.Queue)
	ask := qk.lean.Load()
	lean := ""
	if ask {
		lean = "l"
	}
	note, seq := s.claimNote()
	c := shapedCall("claim", req.Queue, variant{}, nil,
		req.Max, lease, mstime.Ceil(s.opts.PausedRetry), req.WorkerID, lean, note[0], note[1], note[2])
	// go-redis would send it again after a read timeout or a dropped
	// connection, and the second claim would take more jobs beside the
	// first one's: the store takes a lost reply's jobs back itself.
	c.once = true
	vals, err := s.runShaped(ctx, c).Slice()
	if err != nil {
		if mayHaveRun(err) {
			s.lost.note(base, &lostClaim{queue: req.Queue, seq: seq, until: time.Now().Add(lostWait(req.Lease))})
		}
		return store.ClaimResult{}, wrap("claim from "+strconv.Quote(req.Queue), err)
	}
	vals, tookLean := leanTail(vals)
	if ask && !tookLean {
		qk.lean.Store(false) // the mark was gone: the long way served it
	}
	res, bad, err := decodeClaim(req.Queue, vals)
	if err != nil {
		return res, err
	}
	if len(bad) > 0 {
		s.buryUndecodable(ctx, req.Queue, bad)
	}
	if len(res.Jobs)+len(bad) > 0 {
		s.lost.notedOver(base, req.Queue, seq) // its note took a slot
	}
	return res, nil
}

// undecodable is a claimed job whose stored value could not be read.
type undecodable struct {
	id    string
	token uint64
	err   error
}

// buryUndecodable moves claimed jobs whose stored value is corrupt to
// garbage, with the reason in their history, so that they neither hold
// back the rest of the batch nor come back with every lease expiry. A job
// it fails to bury stays in unack and is reclaimed at its lease deadline,
// as if its worker had died.
func (s *Store) buryUndecodable(ctx context.Context, queue string, bad []undecodable) {
	reqs := make([]store.AttemptEnd, len(bad))
	for i, b := range bad {
		reqs[i] = store.AttemptEnd{
			Queue: queue, ID: b.id, Token: b.token, Outcome: store.OutcomeGarbage,
			Error: &store.AttemptError{Error: "redisstore: stored job cannot be decoded: " + b.err.Error()},
		}
		s.opts.Logger.Warn("redisstore: claimed job cannot be decoded; moving it to garbage",
			"queue", queue, "id", b.id, "error", b.err)
	}
	if _, err := s.Finish(ctx, reqs); err != nil {
		s.opts.Logger.Warn("redisstore: could not move undecodable jobs to garbage; they return at their lease deadline",
			"queue", queue, "error", err)
	}
}

// leanTail returns claim reply vals without the "L" the script's lean way
// ends it with (lua/claim_lean.lua), and whether it was there. The long
// way's reply ends with a number, or with a job's due time (digits, or
// empty).
func leanTail(vals []any) ([]any, bool) {
	if k := len(vals); k > 0 {
		if l, _ := vals[k-1].(string); l == "L" {
			return vals[:k-1], true
		}
	}
	return vals, false
}

// decodeClaim reads the claim script's reply (lua/claim.lua says its
// form). A job whose stored value does not decode is left out of the
// result and returned in bad; a job whose error history does not decode
// is delivered with a history that says so.
func decodeClaim(queue string, vals []any) (res store.ClaimResult, bad []undecodable, err error) {
	const head = 5 // now, deadline, retryIn, token, startWithin; then the jobs' count
	malformed := func() error {
		return wrap("claim", fmt.Errorf("unexpected reply of %d values", len(vals)))
	}
	if len(vals) < head {
		return store.ClaimResult{}, nil, malformed()
	}
	now, _ := vals[0].(int64)
	deadline, _ := vals[1].(int64)
	retryIn, _ := vals[2].(int64)
	token, _ := vals[3].(int64)
	within, _ := vals[4].(int64)
	res = store.ClaimResult{RetryIn: msDur(retryIn)}
	if len(vals) == head {
		return res, nil, nil
	}
	// The jobs (ID and value each), the jobs attempted before (index,
	// attempt, errors, due each) and the waits before they start (none,
	// or one a job).
	n, _ := vals[head].(int64)
	if n < 0 || n > int64(len(vals)) {
		return store.ClaimResult{}, nil, malformed()
	}
	jobs := head + 1
	tried := jobs + 2*int(n)
	if tried >= len(vals) {
		return store.ClaimResult{}, nil, malformed()
	}
	m, _ := vals[tried].(int64)
	if m < 0 || m > int64(len(vals)) {
		return store.ClaimResult{}, nil, malformed()
	}
	afters := tried + 1 + 4*int(m)
	if afters > len(vals) || (len(vals) != afters && len(vals) != afters+int(n)) {
		return store.ClaimResult{}, nil, malformed()
	}
	if n == 0 {
		return res, nil, nil
	}
	paced := len(vals) > afters
	res.Jobs = make([]*store.JobRecord, 0, n)
	recs := make([]store.JobRecord, n)
	claimedAt, dl := msTime(now), msTime(deadline)
	next := tried + 1 // the next job attempted before, in index order
	for i := range int(n) {
		id, _ := vals[jobs+2*i].(string)
		v, _ := vals[jobs+2*i+1].(string)
		attempt, errs, due := int64(1), "", ""
		if next < afters {
			if at, _ := vals[next].(int64); at == int64(i+1) {
				attempt, _ = vals[next+1].(int64)
				errs, _ = vals[next+2].(string)
				due, _ = vals[next+3].(string)
				next += 4
			}
		}
		if v == "" {
			continue // an ID without a job; the script skipped it
		}
		r := &recs[i]
		r.ID = id
		if err := decodeValue(v, r); err != nil {
			bad = append(bad, undecodable{id: id, token: uint64(token), err: err})
			continue
		}
		r.Queue = queue
		r.State = store.StateUnack
		r.Attempt = int(attempt)
		r.AttemptedAt = claimedAt
		r.Deadline = dl
		r.Token = uint64(token)
		r.RunAt = r.EnqueuedAt
		if due != "" { // "": it went straight to ready
			// With decimals when an older release promoted the job.
			if ms := scoreMs(due); ms > 0 {
				r.RunAt = msTime(ms)
			}
		}
		if errs != "" {
			h, err := decodeHistory(errs)
			if err != nil {
				h = []store.AttemptError{{Error: "redisstore: error history cannot be decoded: " + err.Error()}}
			}
			r.Errors = h
		}
		res.Jobs = append(res.Jobs, r)
		var after int64
		if paced {
			after, _ = vals[afters+i].(int64)
		}
		if after > 0 && res.StartAfter == nil {
			res.StartAfter = make([]time.Duration, len(res.Jobs)-1, n)
		}
		if res.StartAfter != nil {
			res.StartAfter = append(res.StartAfter, time.Duration(after)*time.Microsecond)
		}
	}
	if len(res.Jobs) > 0 {
		res.StartWithin = time.Duration(within) * time.Microsecond
	}
	return res, bad, nil
}
