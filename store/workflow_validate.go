package store

import (
	"fmt"
	"strings"
)

// ValidateWorkflowID returns nil for a valid workflow ID (see NewWorkflow.ID),
// or an error wrapping ErrInvalidWorkflow.
func ValidateWorkflowID(id string) error {
	if err := validateName(id, MaxWorkflowIDLen); err != nil {
		return fmt.Errorf("%w: workflow ID %s", ErrInvalidWorkflow, err)
	}
	return nil
}

// ValidateWorkflowBatch checks the batch of Workflows.MaintainWorkflows:
// zero (DefaultMaintainBatch) or more. A negative batch gives an error
// wrapping ErrInvalidConfig.
func ValidateWorkflowBatch(batch int) error {
	if batch < 0 {
		return fmt.Errorf("%w: MaintainWorkflows batch %d is negative", ErrInvalidConfig, batch)
	}
	return nil
}

// ValidateTaskName returns nil for a valid task name (see NewTask.Name), or
// an error wrapping ErrInvalidWorkflow.
func ValidateTaskName(name string) error {
	if err := validateName(name, MaxTaskNameLen); err != nil {
		return fmt.Errorf("%w: task name %s", ErrInvalidWorkflow, err)
	}
	return nil
}

func validateName(s string, max int) error {
	if s == "" || len(s) > max {
		return fmt.Errorf("must be 1 to %d bytes, got %d", max, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == ':' {
			continue
		}
		return fmt.Errorf("%q has %q at byte %d (allowed: letters, digits, '_', '.', '-', ':')", s, s[i:i+1], i)
	}
	return nil
}

// ParseTaskJobID splits a task's job ID into its workflow ID and task name;
// ok is false when id is not one.
func ParseTaskJobID(id string) (wf, task string, ok bool) {
	wf, task, ok = strings.Cut(id, "~")
	if !ok || ValidateWorkflowID(wf) != nil || ValidateTaskName(task) != nil {
		return "", "", false
	}
	return wf, task, true
}

// Validate checks a workflow before it reaches a store: a valid ID (not
// "." or "..") and name, at least one and at most MaxWorkflowTasks tasks, each valid (see
// validateTask) with a unique name, dependencies on tasks of the workflow
// only, no Blocks, and no cycle (the error names one). It returns an error
// wrapping ErrInvalidWorkflow, or ErrInvalidJob for a task's job. Stores
// call it in EnqueueWorkflow.
func (w *NewWorkflow) Validate() error {
	if w == nil {
		return fmt.Errorf("%w: nil workflow", ErrInvalidWorkflow)
	}
	if err := ValidateWorkflowID(w.ID); err != nil {
		return err
	}
	if dotSegment(w.ID) {
		// Refused where a workflow is made only: one stored by an older
		// release stays readable.
		return fmt.Errorf("%w: workflow ID %q is a path's dot segment, which a browser drops from the workflow's address (the dashboard's page of it): use another", ErrInvalidWorkflow, w.ID)
	}
	if len(w.Name) > MaxWorkflowNameLen {
		return fmt.Errorf("%w: name is %d bytes, at most %d", ErrInvalidWorkflow, len(w.Name), MaxWorkflowNameLen)
	}
	if w.Retention < 0 {
		return fmt.Errorf("%w: Retention %v is negative", ErrInvalidWorkflow, w.Retention)
	}
	if len(w.Tasks) == 0 || len(w.Tasks) > MaxWorkflowTasks {
		return fmt.Errorf("%w: %d tasks, must be 1 to %d", ErrInvalidWorkflow, len(w.Tasks), MaxWorkflowTasks)
	}
	names := make(map[string]int, len(w.Tasks))
	for i, t := range w.Tasks {
		if err := validateTask(w.ID, t); err != nil {
			return fmt.Errorf("task %d: %w", i, err)
		}
		if len(t.Blocks) > 0 {
			return fmt.Errorf("%w: task %q: Blocks is only for AddTasks", ErrInvalidWorkflow, t.Name)
		}
		if _, dup := names[t.Name]; dup {
			return fmt.Errorf("%w: two tasks are named %q", ErrInvalidWorkflow, t.Name)
		}
		names[t.Name] = i
	}
	for _, t := range w.Tasks {
		for _, d := range t.Deps {
			if _, ok := names[d]; !ok {
				return fmt.Errorf("%w: task %q depends on %q, which the workflow does not have", ErrInvalidWorkflow, t.Name, d)
			}
		}
	}
	if cycle := findCycle(w.Tasks, names); cycle != nil {
		return fmt.Errorf("%w: dependency cycle %s", ErrInvalidWorkflow, strings.Join(cycle, " -> "))
	}
	return nil
}

// ValidateAddedTasks checks tasks for AddTasks to workflow wf by task by:
// each task valid with a unique name, and no cycle among them. References
// to the workflow's existing tasks are the store's to check.
func ValidateAddedTasks(wf, by string, tasks []*NewTask) error {
	if err := ValidateWorkflowID(wf); err != nil {
		return err
	}
	if err := ValidateTaskName(by); err != nil {
		return err
	}
	if len(tasks) > MaxWorkflowTasks {
		return fmt.Errorf("%w: %d tasks, at most %d", ErrInvalidWorkflow, len(tasks), MaxWorkflowTasks)
	}
	names := make(map[string]int, len(tasks))
	for i, t := range tasks {
		if err := validateTask(wf, t); err != nil {
			return fmt.Errorf("task %d: %w", i, err)
		}
		for _, b := range t.Blocks {
			if err := ValidateTaskName(b); err != nil {
				return fmt.Errorf("task %q blocks: %w", t.Name, err)
			}
		}
		if _, dup := names[t.Name]; dup {
			return fmt.Errorf("%w: two tasks are named %q", ErrInvalidWorkflow, t.Name)
		}
		names[t.Name] = i
	}
	if cycle := findCycle(tasks, names); cycle != nil {
		return fmt.Errorf("%w: dependency cycle %s", ErrInvalidWorkflow, strings.Join(cycle, " -> "))
	}
	return nil
}

// validateTask checks one task of workflow wf: its name, its dependencies'
// names (none twice), and its job (valid, with the task's job
// ID and Meta, no unique key or schedule).
func validateTask(wf string, t *NewTask) error {
	if t == nil {
		return fmt.Errorf("%w: nil task", ErrInvalidWorkflow)
	}
	if err := ValidateTaskName(t.Name); err != nil {
		return err
	}
	seen := make(map[string]bool, len(t.Deps))
	for _, d := range t.Deps {
		if err := ValidateTaskName(d); err != nil {
			return fmt.Errorf("task %q dependency: %w", t.Name, err)
		}
		// A dependency on itself is a cycle: findCycle names it, as
		// it names the others.
		if seen[d] {
			return fmt.Errorf("%w: task %q names dependency %q twice", ErrInvalidWorkflow, t.Name, d)
		}
		seen[d] = true
	}
	j := t.Job
	if j == nil {
		return fmt.Errorf("%w: task %q has no job", ErrInvalidWorkflow, t.Name)
	}
	if want := TaskJobID(wf, t.Name); j.ID != want {
		return fmt.Errorf("%w: task %q: job ID %q, want %q", ErrInvalidWorkflow, t.Name, j.ID, want)
	}
	if j.Meta[MetaWorkflow] != wf || j.Meta[MetaTask] != t.Name {
		return fmt.Errorf("%w: task %q: job Meta must hold %s=%q and %s=%q", ErrInvalidWorkflow, t.Name, MetaWorkflow, wf, MetaTask, t.Name)
	}
	if j.UniqueKey != "" || j.Schedule != "" {
		return fmt.Errorf("%w: task %q: a task's job cannot have a unique key or a schedule", ErrInvalidWorkflow, t.Name)
	}
	return j.Validate()
}

// findCycle returns the names along one dependency cycle among tasks (deps
// outside the set are ignored), first name repeated at the end, or nil.
func findCycle(tasks []*NewTask, index map[string]int) []string {
	const (
		unseen = iota
		onPath
		finished
	)
	mark := make([]uint8, len(tasks))
	// Iterative depth-first search: a workflow may be 100,000 tasks deep.
	type frame struct{ task, next int }
	for start := range tasks {
		if mark[start] != unseen {
			continue
		}
		stack := []frame{{start, 0}}
		mark[start] = onPath
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			deps := tasks[top.task].Deps
			if top.next == len(deps) {
				mark[top.task] = finished
				stack = stack[:len(stack)-1]
				continue
			}
			d, ok := index[deps[top.next]]
			top.next++
			if !ok {
				continue
			}
			switch mark[d] {
			case onPath:
				var cycle []string
				for i := len(stack) - 1; i >= 0; i-- {
					cycle = append(cycle, tasks[stack[i].task].Name)
					if stack[i].task == d {
						break
					}
				}
				// cycle runs from the last task back to d along "depends
				// on": reverse it to read d -> ... in dependency order.
				for i, j := 0, len(cycle)-1; i < j; i, j = i+1, j-1 {
					cycle[i], cycle[j] = cycle[j], cycle[i]
				}
				return append(cycle, cycle[0])
			case unseen:
				mark[d] = onPath
				stack = append(stack, frame{d, 0})
			}
		}
	}
	return nil
}
