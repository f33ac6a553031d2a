package redisstore

import (
	"context"
	"strconv"

	"github.com/hopperq/hopper/store"
)

// releaseLocal enqueues, on one server, the first tasks of workflow wf
// that its creation left being released (rels, each with tasks[k] its
// task, by byName), and confirms them in the same step: one
// wf_release_local.lua call per queue and chunk of wfScriptTasks, in the
// variant of the queue's shape, all in one round trip (with
// Config.Replicas, waiting for them to reach the replicas). Elsewhere
// (a Cluster, OneSlotPerScript) release and confirm are two steps in two
// slots (settleAll).
//
// A large workflow's staged roots all go this way. Through wf_release.lua
// (the variant that serves every shape, the values sent again) and then
// wf_confirm.lua, creating a fan-out of 10,000 cost Redis 60.1k
// instructions a task; this way, 53.6k (bench/instr/callgrind.sh, enqueue
// -workflow). A workflow created in one step (at most wfScriptTasks
// tasks) enqueues the first tasks of one queue itself; those of its other
// queues go this way too, one round trip instead of two.
func (s *Store) releaseLocal(ctx context.Context, wf string, rels []wfRelease, tasks []*store.NewTask, byName map[string]int) error {
	type chunk struct {
		sh   shape
		args []any
	}
	byQueue := map[string][]*chunk{}
	var order []string
	for _, r := range rels {
		k, ok := byName[r.task]
		if !ok {
			continue
		}
		j := tasks[k].Job
		cs := byQueue[j.Queue]
		if cs == nil {
			order = append(order, j.Queue)
		}
		if len(cs) == 0 || len(cs[len(cs)-1].args) > wfScriptTasks {
			cs = append(cs, &chunk{args: append(make([]any, 0, 1+wfScriptTasks), wf)})
			byQueue[j.Queue] = cs
		}
		c := cs[len(cs)-1]
		c.sh |= jobShape(j)
		c.args = append(c.args, r.task)
	}
	var calls []*evalCall
	var callQueue []string
	for _, q := range order {
		for _, c := range byQueue[q] {
			calls = append(calls, &evalCall{file: "wf_release_local", queue: q, wf: wf, vary: variant{shape: c.sh}, args: c.args})
			callQueue = append(callQueue, q)
		}
	}
	s.sendShaped(ctx, calls, nil, true)
	for i, c := range calls {
		if err := c.cmd.Err(); err != nil {
			return wrap("enqueue workflow tasks into "+strconv.Quote(callQueue[i]), err)
		}
	}
	return nil
}

// beforeRelease runs the test hook wfBeforeRelease, once.
func (s *Store) beforeRelease() {
	if f := s.wfBeforeRelease.Swap(nil); f != nil {
		(*f)()
	}
}
