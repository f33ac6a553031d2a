package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
)

// A large workflow is stored in steps. One script that stores 100,000
// tasks holds Redis for about a second, and every other client waits
// that long. EnqueueWorkflow stages all but the last stageSize() tasks
// first, stageSize a call (wf_stage.lua), into keys of their own
// named after the call's attempt ("<key>:<attempt>", keys.go's families)
// that expire after wfStageTTL. The last step (wf_create.lua,
// wf_create_local.lua) checks the ID is free, renames the staged keys
// into place, stores the rest and creates the workflow: until then no
// reader, sweeper or index sees any of it, two calls with one ID stage
// apart and the first last step wins (the other's is a duplicate and
// drops its staged keys), and a process that dies before its last step
// leaves keys that expire. A last step that finds its staged keys gone
// (the call took longer than their TTL) stores nothing and fails. An ACL
// user without +pexpire +rename +persist (an older recipe) stages nothing
// and creates the workflow in one step, as before.

// wfScriptTasks is how many tasks of a workflow one script call stages,
// enqueues (wf_release.lua) or confirms at most: such a call of 1,000
// held Redis 20 to 30 ms (SLOWLOG, an AMD EPYC guest), one of 250 about 4
// (18 at most, the creating process's CPU beside it on two cores).
const wfScriptTasks = 250

// stageSize is how many tasks one staging call stores; a workflow of at
// most this many is created in one step: wfScriptTasks, or less in tests.
func (s *Store) stageSize() int {
	if s.wfStageTasks > 0 {
		return s.wfStageTasks
	}
	return wfScriptTasks
}

// wfStageTTL is how long staged tasks wait for their workflow's last
// step.
const wfStageTTL = 5 * time.Minute

// staged is what stageTasks stored: attempt names its keys ("" when
// nothing was staged), tasks how many, the first ones of the workflow,
// and roots the names of those without dependencies, which the last step
// leaves being released. dup reports that the workflow exists already.
type staged struct {
	attempt string
	tasks   int
	roots   []string
	dup     bool
}

// stageTasks stages the first tasks of workflow id (args: six values a
// task, in EnqueueWorkflow's order) when there are more than
// stageSize, leaving the last stageSize to the last step: all the calls in
// one round trip.
func (s *Store) stageTasks(ctx context.Context, id string, args []any) (staged, error) {
	n, size := len(args)/6, s.stageSize()
	if n <= size {
		return staged{}, nil
	}
	st := staged{attempt: newClaimer(), tasks: n - size}
	sc := fullScript("wf_stage")
	keys := s.scriptKeys(sc, nil, id)
	ttl := mstime.Ceil(wfStageTTL)
	var calls []*evalCall
	for from := 0; from < st.tasks; from += size {
		to := min(from+size, st.tasks)
		a := make([]any, 0, 3+6*(to-from))
		a = append(a, id, st.attempt, ttl)
		a = append(a, args[6*from:6*to]...)
		calls = append(calls, &evalCall{script: sc, keys: keys, args: a})
	}
	s.runAll(ctx, calls, nil)
	noperm := false
	for _, c := range calls {
		v, err := c.cmd.StringSlice()
		if err != nil {
			return st, wrap("enqueue workflow "+strconv.Quote(id), err)
		}
		if len(v) == 1 && (v[0] == "dup" || v[0] == "noperm") {
			st.dup, noperm = st.dup || v[0] == "dup", noperm || v[0] == "noperm"
			continue
		}
		st.roots = append(st.roots, v...)
	}
	if noperm && !st.dup {
		// An ACL user without +pexpire +rename +persist: every call
		// stored nothing, and the workflow is created in one step, holding
		// Redis as long as it takes.
		return staged{}, nil
	}
	if st.dup {
		// The workflow exists: what the other calls staged expires.
		return st, nil
	}
	if s.crashAt("stage") {
		return st, errCrash
	}
	if f := s.wfAfterStage.Swap(nil); f != nil {
		(*f)()
	}
	return st, nil
}

// stageExpired is the error of a last step whose staged tasks were gone.
func stageExpired(id string) error {
	return fmt.Errorf("%w: enqueue workflow %q: the tasks staged before its last step expired (the call took longer than %v); nothing is stored: enqueue it again",
		ErrUnavailable, id, wfStageTTL)
}
