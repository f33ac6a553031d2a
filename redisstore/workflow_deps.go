package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hopperq/hopper/store"
)

// TaskDeps returns task's dependencies in workflow wf (see
// store.Workflows) in one read-only script, wf_taskdeps.lua: the
// workflow's keys share one hash tag, so it runs on one shard of a
// Cluster.
func (s *Store) TaskDeps(ctx context.Context, wf, task string, results bool) ([]store.TaskDep, error) {
	if err := store.ValidateWorkflowID(wf); err != nil {
		return nil, err
	}
	if err := store.ValidateTaskName(task); err != nil {
		return nil, err
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	v, err := s.runWf(ctx, fullScript("wf_taskdeps"), wf, task, flag(results)).Slice()
	if err != nil {
		return nil, wrap("read dependencies of task "+strconv.Quote(task)+" of workflow "+strconv.Quote(wf), err)
	}
	switch len(v) {
	case 0:
		return nil, store.WorkflowNotFound(wf)
	case 1:
		return nil, fmt.Errorf("%w: workflow %q has no task %q", store.ErrInvalidWorkflow, wf, task)
	}
	joined, _ := v[0].(string)
	if joined == "" {
		return []store.TaskDep{}, nil
	}
	names := strings.Split(joined, "\n")
	states, _ := v[1].([]any)
	res, _ := v[2].([]any)
	out := make([]store.TaskDep, len(names))
	for i, name := range names {
		out[i].Name = name
		if i < len(states) {
			st, _ := states[i].(string)
			out[i].State = taskStates[stateLetter(st)]
		}
		if i < len(res) && out[i].State == store.TaskSucceeded {
			if r, ok := res[i].(string); ok {
				out[i].Result = []byte(r)
			}
		}
	}
	return out, nil
}
