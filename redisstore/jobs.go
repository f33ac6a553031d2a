package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hopperq/hopper/store"
)

// GetJob returns one job with its error history (see store.Store), read
// atomically by one script.
func (s *Store) GetJob(ctx context.Context, queue, id string) (*store.JobRecord, error) {
	if err := s.begin(ctx, queue); err != nil {
		return nil, err
	}
	if parts := s.partNames(queue); parts != nil {
		return firstFound(parts, func(p string) (*store.JobRecord, error) { return s.GetJob(ctx, p, id) })
	}
	v, err := s.runQ(ctx, fullScript("getjob"), queue, id).Slice()
	if err != nil {
		return nil, wrap("get job "+strconv.Quote(id), err)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	if len(v) != 9 {
		return nil, wrap("get job", fmt.Errorf("unexpected reply of %d values", len(v)))
	}
	state, _ := v[0].(string)
	score, _ := v[1].(string)
	rec, err := buildRecord(queue, store.JobState(state), score, v[2:8], false)
	if err != nil {
		return nil, err
	}
	if pg, _ := v[8].(string); pg != "" {
		if rec.Progress, err = decodeProgress(pg); err != nil {
			return nil, wrap("progress of job "+strconv.Quote(id), err)
		}
	}
	return rec, nil
}

// buildRecord assembles a record from the parts the read scripts return:
// id (or, with member, the unack member "id|token"), value, attempt info,
// errors, result, cancelled.
func buildRecord(queue string, state store.JobState, score string, p []any, member bool) (*store.JobRecord, error) {
	id, _ := p[0].(string)
	value, _ := p[1].(string)
	att, _ := p[2].(string)
	errs, _ := p[3].(string)
	result, _ := p[4].(string)
	cancelled, _ := p[5].(int64)
	var memberToken uint64
	if member {
		id, memberToken, _ = splitMember(id)
	}
	rec := &store.JobRecord{ID: id, Queue: queue, State: state, Cancelled: cancelled == 1}
	if err := decodeValue(value, rec); err != nil {
		return nil, wrap("job "+strconv.Quote(id), err)
	}
	a := parseAttInfo(att)
	rec.Attempt = a.attempt
	rec.AttemptedAt = msTime(a.claimedMs)
	at := scoreMs(score)
	// RunAt is the due time in pending and retry; in every other state,
	// when the job last fell due (recorded at promotion), else its enqueue.
	rec.RunAt = rec.EnqueuedAt
	if a.readyMs > 0 {
		rec.RunAt = msTime(a.readyMs)
	}
	switch state {
	case store.StatePending, store.StateRetry:
		rec.RunAt = msTime(at)
	case store.StateUnack:
		rec.Deadline = msTime(at)
		rec.Token = a.token
		if member {
			rec.Token = memberToken
		}
	case store.StateGarbage, store.StateDone:
		rec.FinishedAt = msTime(at)
	}
	if result != "" {
		rec.Result = []byte(result)
	}
	h, err := decodeHistory(errs)
	if err != nil {
		return nil, wrap("error history of job "+strconv.Quote(rec.ID), err)
	}
	rec.Errors = h
	return rec, nil
}

// scoreMs parses a sorted-set score (milliseconds); 0 for none. A due
// time kept to the microsecond (place.lua) is rounded down to the
// millisecond, as a promotion records it (score_ms in base.lua) and as
// every recorded time is, so a job's AttemptedAt is never before its
// RunAt.
func scoreMs(s string) int64 {
	if s == "" {
		return 0
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	f, _ := strconv.ParseFloat(s, 64)
	return int64(f) // rounded down: scores are not negative
}

// splitMember splits an unack member "id|token".
func splitMember(m string) (string, uint64, bool) {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] == '|' {
			tok, err := strconv.ParseUint(m[i+1:], 10, 64)
			return m[:i], tok, err == nil
		}
	}
	return m, 0, false
}

// ListJobs returns a range of one queue's jobs in one state (see
// store.Admin and store.ListJobsOpts for the order), read atomically by one
// script. An invalid queue or state or a negative Offset or Limit is
// refused before any call to Redis (store.ListJobsOpts.Validate).
func (s *Store) ListJobs(ctx context.Context, req store.ListJobsOpts) (store.JobPage, error) {
	if err := req.Validate(); err != nil {
		return store.JobPage{}, err
	}
	if err := s.begin(ctx, req.Queue); err != nil {
		return store.JobPage{}, err
	}
	if err := s.refuseWhole(req.Queue, "list its partitions"); err != nil {
		return store.JobPage{}, err
	}
	total, recs, err := s.listRange(ctx, req, req.Offset, req.Limit)
	return store.JobPage{Jobs: recs, Total: total}, err
}

// listRange reads n jobs of req's queue and state from offset.
func (s *Store) listRange(ctx context.Context, req store.ListJobsOpts, offset, n int) (int, []*store.JobRecord, error) {
	v, err := s.runList(ctx, req.Queue, req.State, req.Newest, offset, n, 1)
	if err != nil {
		return 0, nil, wrap("list "+string(req.State)+" jobs of "+strconv.Quote(req.Queue), err)
	}
	total, _ := v[0].(int64)
	recs, err := listRecords(req.Queue, req.State, v[1:])
	return int(total), recs, err
}

// runList runs list.lua on queue's state st: n jobs from offset, or with
// search (kind, text, ID prefix, most matches: see list.lua) the
// candidates among them. head is how many values come before the records
// in the reply (1: the total; 2 with a search: the total and how many were
// examined); the reply is checked to hold whole records after them.
func (s *Store) runList(ctx context.Context, queue string, st store.JobState, newest bool, offset, n, head int, search ...any) ([]any, error) {
	rev := "0"
	if newest {
		rev = "1"
	}
	args := append([]any{string(st), offset, n, rev}, search...)
	v, err := s.runQ(ctx, fullScript("list"), queue, args...).Slice()
	if err == nil && (len(v) < head || (len(v)-head)%7 != 0) {
		err = fmt.Errorf("unexpected reply of %d values", len(v))
	}
	return v, err
}

// listRecords builds the records of a list.lua reply (its values after the
// head): seven values a job.
func listRecords(queue string, st store.JobState, v []any) ([]*store.JobRecord, error) {
	recs := make([]*store.JobRecord, 0, len(v)/7)
	for i := 0; i+7 <= len(v); i += 7 {
		score, _ := v[i].(string)
		if val, _ := v[i+2].(string); val == "" {
			continue // deleted between the range and the read: cannot happen in one script
		}
		r, err := buildRecord(queue, st, score, v[i+1:i+7], st == store.StateUnack)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// SearchJobs looks for candidates in one state of a queue (see
// store.Searcher): one read-only script call, which examines req.Examine
// jobs from req.From and returns those whose stored value holds the kind
// and the text and whose ID has the prefix. Through the kind index
// (store.SearchWalkKind, or SearchWalkShorter when the index is the
// shorter walk) it examines the index's entries and keeps those in the
// state (lua/kind_search.lua). What store.SearchJobsOpts.Validate
// refuses (an invalid queue, state or walk, negative counts) is refused
// before any call to Redis.
func (s *Store) SearchJobs(ctx context.Context, req store.SearchJobsOpts) (store.SearchPage, error) {
	if err := req.Validate(); err != nil {
		return store.SearchPage{}, err
	}
	if err := s.begin(ctx, req.Queue); err != nil {
		return store.SearchPage{}, err
	}
	if err := s.refuseWhole(req.Queue, "search its partitions"); err != nil {
		return store.SearchPage{}, err
	}
	if req.Walk != store.SearchWalkState && req.Kind != "" {
		page, ok, err := s.searchKind(ctx, req)
		if ok || err != nil {
			return page, err
		}
	}
	if req.Walk == store.SearchWalkKind {
		return store.SearchPage{}, fmt.Errorf("search %s jobs of %q by kind %q: %w", req.State, req.Queue, req.Kind, store.ErrNoKindIndex)
	}
	v, err := s.runList(ctx, req.Queue, req.State, req.Newest, req.From, req.Examine, 2,
		req.Kind, strings.ToLower(req.Text), req.IDPrefix, req.Limit)
	if err != nil {
		return store.SearchPage{}, wrap("search "+string(req.State)+" jobs of "+strconv.Quote(req.Queue), err)
	}
	total, _ := v[0].(int64)
	examined, _ := v[1].(int64)
	recs, err := listRecords(req.Queue, req.State, v[2:])
	return store.SearchPage{Jobs: recs, Total: int(total), Examined: int(examined)}, err
}

// searchKind runs kind_search.lua for SearchJobs. ok is false when the
// walk is the state's after all: no complete index, or (SearchWalkShorter)
// one no shorter than the state.
func (s *Store) searchKind(ctx context.Context, req store.SearchJobsOpts) (page store.SearchPage, ok bool, err error) {
	rev, mode := "0", "kind"
	if req.Newest {
		rev = "1"
	}
	if req.Walk == store.SearchWalkShorter {
		mode = "shorter"
	}
	v, err := s.runQ(ctx, fullScript("kind_search"), req.Queue, string(req.State), max(req.From, 0), req.Examine, rev, mode,
		strings.ToLower(req.Text), req.IDPrefix, req.Limit, req.Kind).Slice()
	if err == nil && (len(v) == 0 || (len(v) > 1 && (len(v)-2)%7 != 0)) {
		err = fmt.Errorf("unexpected reply of %d values", len(v))
	}
	if err != nil {
		return page, false, wrap("search "+string(req.State)+" jobs of "+strconv.Quote(req.Queue)+" by kind", err)
	}
	total, _ := v[0].(int64)
	if total < 0 {
		return page, false, nil
	}
	examined, _ := v[1].(int64)
	recs, err := listRecords(req.Queue, req.State, v[2:])
	return store.SearchPage{Jobs: recs, Total: int(total), Examined: int(examined), Walk: store.SearchWalkKind}, true, err
}
