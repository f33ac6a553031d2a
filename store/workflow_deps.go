package store

// TaskDep is one dependency of a task, as Workflows.TaskDeps returns it.
type TaskDep struct {
	// Name is the dependency's task name.
	Name string
	// State is its state when read. A released task's dependencies have
	// all ended (TaskSucceeded, TaskFailed, TaskSkipped or
	// TaskCancelled), unless one was requeued since.
	State TaskState
	// Result is what it recorded when it succeeded, as TaskResults
	// returns it: nil when it recorded none, has not succeeded, or the
	// call did not ask for results.
	Result []byte
}
