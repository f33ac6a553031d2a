package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hopperq/hopper/store"
)

// Limits of ListWorkflows.
const (
	defaultWorkflowLimit = 50
	maxWorkflowLimit     = 1000
)

// ListWorkflows returns the workflows matching f, newest first (by
// CreatedAt, then by ID, both descending), without their tasks; Total is
// how many match in all (exact: the store examines every workflow) and
// Counts how many workflows are in each state, store-wide. A Limit of zero
// means 50. A State that is not a WorkflowState, a negative Offset or
// Limit, or a Limit over 1,000 gives an error wrapping
// store.ErrInvalidConfig. Search keeps the workflows whose ID starts with
// it or whose Name contains it, case-sensitively.
func (s *Store) ListWorkflows(ctx context.Context, f store.ListWorkflowsOpts) (store.WorkflowPage, error) {
	var page store.WorkflowPage
	if err := ctx.Err(); err != nil {
		return page, err
	}
	if f.State != "" && !f.State.Valid() {
		return page, fmt.Errorf("%w: workflow state %q", store.ErrInvalidConfig, f.State)
	}
	if f.Offset < 0 || f.Limit < 0 || f.Limit > maxWorkflowLimit {
		return page, fmt.Errorf("%w: Offset %d and Limit %d must be >= 0, Limit at most %d", store.ErrInvalidConfig, f.Offset, f.Limit, maxWorkflowLimit)
	}
	limit := f.Limit
	if limit == 0 {
		limit = defaultWorkflowLimit
	}
	now, _ := s.now()
	s.wf.mu.Lock()
	defer s.wf.mu.Unlock()
	page.Counts = make(map[store.WorkflowState]int, len(store.WorkflowStates))
	for _, st := range store.WorkflowStates {
		page.Counts[st] = 0
	}
	var match []*workflow
	for _, id := range slices.Collect(maps.Keys(s.wf.byID)) {
		w := s.getWorkflow(id, now)
		if w == nil {
			continue
		}
		page.Counts[w.state]++
		if f.State != "" && w.state != f.State {
			continue
		}
		if f.Search != "" && !strings.HasPrefix(w.id, f.Search) && !strings.Contains(w.name, f.Search) {
			continue
		}
		match = append(match, w)
	}
	page.Total = len(match)
	slices.SortFunc(match, func(a, b *workflow) int {
		if c := b.createdAt.Compare(a.createdAt); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	match = match[min(f.Offset, len(match)):]
	match = match[:min(limit, len(match))]
	page.Workflows = make([]store.WorkflowRecord, len(match))
	for i, w := range match {
		page.Workflows[i] = w.record()
	}
	return page, nil
}
