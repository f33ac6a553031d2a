package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hopperq/hopper"
)

// GetJob returns one job with its error history (see hopper.Store), read
// atomically by one script.
func (s *Store) GetJob(ctx context.Context, queue, id string) (*hopper.JobRecord, error) {
	if err := s.begin(ctx, queue); err != nil {
		return nil, err
	}
	k := s.queueKeys(queue)
	v, err := s.run(ctx, scriptGetJob, k.getKeys, id).Slice()
	if err != nil {
		return nil, wrap("get job "+strconv.Quote(id), err)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%w: job %q of queue %q", hopper.ErrJobNotFound, id, queue)
	}
	if len(v) != 8 {
		return nil, wrap("get job", fmt.Errorf("unexpected reply of %d values", len(v)))
	}
	state, _ := v[0].(string)
	score, _ := v[1].(string)
	return buildRecord(queue, hopper.JobState(state), score, v[2:], false)
}

// buildRecord assembles a record from the parts the read scripts return:
// id (or, with member, the unack member "id|token"), value, attempt info,
// errors, result, cancelled.
func buildRecord(queue string, state hopper.JobState, score string, p []any, member bool) (*hopper.JobRecord, error) {
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
	rec := &hopper.JobRecord{ID: id, Queue: queue, State: state, Cancelled: cancelled == 1}
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
	case hopper.StatePending, hopper.StateRetry:
		rec.RunAt = msTime(at)
	case hopper.StateUnack:
		rec.Deadline = msTime(at)
		rec.Token = a.token
		if member {
			rec.Token = memberToken
		}
	case hopper.StateGarbage, hopper.StateDone:
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

// scoreMs parses a sorted-set score (milliseconds); 0 for none.
func scoreMs(s string) int64 {
	if s == "" {
		return 0
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	f, _ := strconv.ParseFloat(s, 64)
	return int64(f)
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

// Default bounds of ListJobs.
const (
	defaultListLimit = 50
	defaultScanLimit = 10000
	scanChunk        = 200
)

// ListJobs returns a page of one queue's jobs in one state (see
// hopper.Store and hopper.ListRequest for the order). Without a filter the
// page is read atomically by one script; with Kind or Match the state is
// scanned in chunks of 200, up to ScanLimit jobs.
func (s *Store) ListJobs(ctx context.Context, req hopper.ListRequest) (hopper.JobPage, error) {
	if err := s.begin(ctx, req.Queue); err != nil {
		return hopper.JobPage{}, err
	}
	if !req.State.Valid() {
		return hopper.JobPage{}, fmt.Errorf("%w: %q", hopper.ErrInvalidState, req.State)
	}
	if req.Offset < 0 || req.Limit < 0 || req.ScanLimit < 0 {
		return hopper.JobPage{}, fmt.Errorf("%w: ListRequest has a negative Offset, Limit or ScanLimit", hopper.ErrInvalidConfig)
	}
	limit := req.Limit
	if limit == 0 {
		limit = defaultListLimit
	}
	if req.Kind == "" && req.Match == nil {
		total, recs, err := s.listRange(ctx, req, req.Offset, limit)
		return hopper.JobPage{Jobs: recs, Total: total}, err
	}
	scanLimit := req.ScanLimit
	if scanLimit == 0 {
		scanLimit = defaultScanLimit
	}
	page := hopper.JobPage{Jobs: []*hopper.JobRecord{}}
	examined := 0
	for examined < scanLimit {
		n := min(scanChunk, scanLimit-examined)
		total, recs, err := s.listRange(ctx, req, examined, n)
		if err != nil {
			return hopper.JobPage{}, err
		}
		for _, r := range recs {
			examined++
			if (req.Kind != "" && r.Kind != req.Kind) || (req.Match != nil && !req.Match(r)) {
				continue
			}
			if page.Total >= req.Offset && len(page.Jobs) < limit {
				page.Jobs = append(page.Jobs, r)
			}
			page.Total++
		}
		if len(recs) < n {
			return page, nil
		}
		if examined >= scanLimit && total > examined {
			page.Truncated = true
		}
	}
	return page, nil
}

// listRange reads n jobs of req's queue and state from offset.
func (s *Store) listRange(ctx context.Context, req hopper.ListRequest, offset, n int) (int, []*hopper.JobRecord, error) {
	k := s.queueKeys(req.Queue)
	kind, unack, newest := "zset", "0", "0"
	if req.State == hopper.StateReady {
		kind = "list"
	}
	if req.State == hopper.StateUnack {
		unack = "1"
	}
	if req.Newest {
		newest = "1"
	}
	keys := []string{k.stateKey(string(req.State)), k.jobs, k.att, k.errs, k.results, k.cancelled}
	v, err := s.run(ctx, scriptList, keys, kind, offset, n, newest, unack).Slice()
	if err == nil && (len(v) < 1 || (len(v)-1)%7 != 0) {
		err = fmt.Errorf("unexpected reply of %d values", len(v))
	}
	if err != nil {
		return 0, nil, wrap("list "+string(req.State)+" jobs of "+strconv.Quote(req.Queue), err)
	}
	total, _ := v[0].(int64)
	recs := make([]*hopper.JobRecord, 0, (len(v)-1)/7)
	for i := 1; i+7 <= len(v); i += 7 {
		score, _ := v[i].(string)
		if val, _ := v[i+2].(string); val == "" {
			continue // deleted between the range and the read: cannot happen in one script
		}
		r, err := buildRecord(req.Queue, req.State, score, v[i+1:i+7], req.State == hopper.StateUnack)
		if err != nil {
			return 0, nil, err
		}
		recs = append(recs, r)
	}
	return int(total), recs, nil
}
