package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/hopperq/hopper/store"
)

// taskStates maps lib_wfgraph.lua's state letters.
var taskStates = map[string]store.TaskState{
	"w": store.TaskWaiting, "e": store.TaskEnqueued, "S": store.TaskSucceeded,
	"F": store.TaskFailed, "K": store.TaskSkipped, "C": store.TaskCancelled,
}

// GetWorkflow returns workflow id with its tasks (see store.Workflows), in
// one read-only script.
func (s *Store) GetWorkflow(ctx context.Context, id string) (*store.WorkflowRecord, error) {
	if err := store.ValidateWorkflowID(id); err != nil {
		return nil, err
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	v, err := s.runWf(ctx, fullScript("wf_get"), id).Slice()
	if err != nil {
		return nil, wrap("get workflow "+strconv.Quote(id), err)
	}
	if len(v) != 4 {
		return nil, store.WorkflowNotFound(id)
	}
	meta, states, infos, deps := pairs(v[0]), pairs(v[1]), pairs(v[2]), pairs(v[3])
	// A state is its letter, then the seq of the task's last end applied.
	rec := workflowOf(id, meta)
	type ordered struct {
		ord int
		t   store.TaskRecord
	}
	list := make([]ordered, 0, len(infos))
	for name, info := range infos {
		parts := strings.Split(info, "\n")
		if len(parts) != 6 {
			continue
		}
		ord, _ := strconv.Atoi(parts[5])
		t := store.TaskRecord{
			Name: name, Queue: parts[0], Kind: parts[1], JobID: store.TaskJobID(id, name),
			AllowFailure: parts[2] == "1", AnyOutcome: parts[3] == "1", AddedBy: parts[4],
			State: taskStates[stateLetter(states[name])],
		}
		if d := deps[name]; d != "" {
			t.Deps = strings.Split(d, "\n")
		}
		list = append(list, ordered{ord, t})
	}
	slices.SortFunc(list, func(a, b ordered) int { return a.ord - b.ord })
	rec.Tasks = make([]store.TaskRecord, len(list))
	for i, o := range list {
		rec.Tasks[i] = o.t
	}
	return rec, nil
}

// pairs reads an HGETALL reply.
func pairs(v any) map[string]string {
	l, _ := v.([]any)
	m := make(map[string]string, len(l)/2)
	for i := 0; i+1 < len(l); i += 2 {
		k, _ := l[i].(string)
		x, _ := l[i+1].(string)
		m[k] = x
	}
	return m
}

// workflowOf builds a record, without tasks, from a meta hash.
func workflowOf(id string, meta map[string]string) *store.WorkflowRecord {
	ms := func(f string) int64 { n, _ := strconv.ParseInt(meta[f], 10, 64); return n }
	rec := &store.WorkflowRecord{
		ID: id, Name: meta["name"], State: store.WorkflowState(meta["st"]), Cancelled: meta["cx"] == "1",
		CreatedAt: time.UnixMilli(ms("cr")), Retention: time.Duration(ms("ret")) * time.Millisecond,
		Counts: map[store.TaskState]int{},
	}
	if en := ms("en"); en > 0 {
		rec.EndedAt = time.UnixMilli(en)
	}
	for letter, st := range taskStates {
		if n := ms("c_" + letter); n > 0 {
			rec.Counts[st] = int(n)
		}
	}
	return rec
}

// metaFields are the meta fields a listing reads.
var metaFields = []string{"name", "st", "cx", "cr", "en", "ret", "c_w", "c_e", "c_S", "c_F", "c_K", "c_C"}

// ListWorkflows lists workflows from the index (see store.Workflows):
// newest first from the state's set, with an ID prefix from the lexical
// set, and a name search over the newest 10,000 examined.
func (s *Store) ListWorkflows(ctx context.Context, f store.ListWorkflowsOpts) (store.WorkflowPage, error) {
	if f.Offset < 0 || f.Limit < 0 || f.Limit > 1000 || (f.State != "" && !f.State.Valid()) {
		return store.WorkflowPage{}, fmt.Errorf("%w: workflow filter %+v", store.ErrInvalidConfig, f)
	}
	if f.Limit == 0 {
		f.Limit = 50
	}
	if err := s.begin(ctx); err != nil {
		return store.WorkflowPage{}, err
	}
	page := store.WorkflowPage{Counts: map[store.WorkflowState]int{}}
	counts := make([]*redis.IntCmd, len(store.WorkflowStates))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, st := range store.WorkflowStates {
			counts[i] = p.ZCard(ctx, s.wfi.stateKey(string(st)))
		}
		return nil
	})
	if err != nil {
		return page, wrap("count workflows", err)
	}
	for i, st := range store.WorkflowStates {
		page.Counts[st] = int(counts[i].Val())
	}
	set := s.wfi.all
	if f.State != "" {
		set = s.wfi.stateKey(string(f.State))
	}
	var ids []string
	if f.Search == "" {
		total, err := s.rdb.ZCard(ctx, set).Result()
		if err != nil {
			return page, wrap("list workflows", err)
		}
		page.Total = int(total)
		ids, err = s.rdb.ZRevRange(ctx, set, int64(f.Offset), int64(f.Offset+f.Limit-1)).Result()
		if err != nil {
			return page, wrap("list workflows", err)
		}
	} else {
		ids, page.Total, err = s.searchWorkflows(ctx, set, f)
		if err != nil {
			return page, err
		}
	}
	recs, err := s.workflowMetas(ctx, ids)
	if err != nil {
		return page, err
	}
	page.Workflows = recs
	return page, nil
}

// searchWorkflows finds workflows whose ID starts with f.Search (by the
// lexical set) or whose name holds it (among the newest 10,000 of set).
func (s *Store) searchWorkflows(ctx context.Context, set string, f store.ListWorkflowsOpts) ([]string, int, error) {
	const examine = 10000
	byID, err := s.rdb.ZRangeByLex(ctx, s.wfi.ids, &redis.ZRangeBy{Min: "[" + f.Search, Max: "[" + f.Search + "\xff", Count: examine}).Result()
	if err != nil {
		return nil, 0, wrap("search workflows", err)
	}
	recent, err := s.rdb.ZRevRange(ctx, set, 0, examine-1).Result()
	if err != nil {
		return nil, 0, wrap("search workflows", err)
	}
	metas, err := s.workflowMetas(ctx, recent)
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	var match []string
	inSet := map[string]bool{}
	for _, r := range metas {
		inSet[r.ID] = true
		if strings.HasPrefix(r.ID, f.Search) || strings.Contains(r.Name, f.Search) {
			seen[r.ID] = true
			match = append(match, r.ID)
		}
	}
	for _, id := range byID {
		if !seen[id] && (f.State == "" || inSet[id]) {
			seen[id] = true
			match = append(match, id)
		}
	}
	total := len(match)
	if f.Offset >= total {
		return nil, total, nil
	}
	return match[f.Offset:min(total, f.Offset+f.Limit)], total, nil
}

// workflowMetas reads the records (without tasks) of ids in one round
// trip; workflows removed meanwhile are left out.
func (s *Store) workflowMetas(ctx context.Context, ids []string) ([]store.WorkflowRecord, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.SliceCmd, len(ids))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.HMGet(ctx, s.wfKeys(id)[0], metaFields...)
		}
		return nil
	})
	if err != nil {
		return nil, wrap("read workflows", err)
	}
	out := make([]store.WorkflowRecord, 0, len(ids))
	for i, c := range cmds {
		v := c.Val()
		meta := make(map[string]string, len(metaFields))
		for j, f := range metaFields {
			if x, ok := v[j].(string); ok {
				meta[f] = x
			}
		}
		if meta["st"] == "" {
			continue
		}
		out = append(out, *workflowOf(ids[i], meta))
	}
	return out, nil
}

// CancelWorkflow cancels workflow id (see store.Workflows): one script in
// its slot cancels its waiting tasks, then its enqueued tasks' jobs are
// cancelled as Cancel does.
func (s *Store) CancelWorkflow(ctx context.Context, id string) error {
	if err := store.ValidateWorkflowID(id); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	v, err := s.runWf(ctx, fullScript("wf_cancel"), id).StringSlice()
	if err != nil {
		return wrap("cancel workflow "+strconv.Quote(id), err)
	}
	switch {
	case len(v) == 1 && v[0] == "gone":
		return store.WorkflowNotFound(id)
	case len(v) == 1 && v[0] == "ended":
		return nil
	}
	// The tasks' jobs are cancelled cancelParallel at a time: one after
	// another, a workflow of 100,000 tasks took 1 min 43 s to cancel.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cancelParallel)
	for i := 1; i+1 < len(v); i += 2 {
		queue, job := v[i+1], store.TaskJobID(id, v[i])
		g.Go(func() error {
			if _, err := s.CancelJob(gctx, queue, job); err != nil && !isNotFound(err) {
				return err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// The index shows the new state (cancelled at once when nothing was
	// running).
	res, err := s.runWf(ctx, fullScript("wf_apply"), id).Slice()
	if err != nil {
		return wrap("cancel workflow "+strconv.Quote(id), err)
	}
	return s.settle(ctx, id, res)
}

// cancelParallel is how many of a workflow's tasks' jobs CancelWorkflow
// cancels at once.
const cancelParallel = 16

// RetryWorkflow requeues the jobs of workflow id's failed and cancelled
// tasks that are in garbage (see store.Workflows).
func (s *Store) RetryWorkflow(ctx context.Context, id string) (int, error) {
	rec, err := s.GetWorkflow(ctx, id)
	if err != nil {
		return 0, err
	}
	if rec.Cancelled {
		return 0, store.WorkflowCancelledError(id)
	}
	byQueue := map[string][]string{}
	var order []string
	for _, t := range rec.Tasks {
		if t.State != store.TaskFailed && t.State != store.TaskCancelled {
			continue
		}
		if _, ok := byQueue[t.Queue]; !ok {
			order = append(order, t.Queue)
		}
		byQueue[t.Queue] = append(byQueue[t.Queue], t.JobID)
	}
	total := 0
	for _, q := range order {
		n, err := s.RequeueJobs(ctx, q, store.StateGarbage, byQueue[q])
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// stateLetter returns the state letter of a task's field of the s hash
// (lib_wfgraph.lua): its first byte.
func stateLetter(v string) string {
	if v == "" {
		return ""
	}
	return v[:1]
}
