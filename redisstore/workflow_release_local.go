package redisstore

import (
	"context"
	"strconv"
	"strings"
)

// releaseLocal enqueues, on one server, the tasks of workflow wf that a
// step left being released (rels: task and queue; a new workflow's first
// tasks, tasks added at run time) and confirms them in the same step: one
// wf_release_local.lua call per queue and chunk of wfScriptTasks, in the
// variant of the queue's shape with what shapeOf says each task's job
// needs, all in one round trip (with Config.Replicas, waiting for them to
// reach the replicas). The jobs are read from the workflow's payloads.
// Elsewhere (a Cluster, OneSlotPerScript) release and confirm are two
// steps in two slots (settleAll).
//
// A large workflow's staged roots all go this way. Through wf_release.lua
// (the variant that serves every shape, the values sent again) and then
// wf_confirm.lua, creating a fan-out of 10,000 cost Redis 60.1k
// instructions a task; this way, 53.6k (bench/instr/callgrind.sh, enqueue
// -workflow). A workflow created in one step (at most wfScriptTasks
// tasks) enqueues the first tasks of one queue itself; those of its other
// queues go this way too, one round trip instead of two; and so do the
// tasks an addition leaves for the other queues.
func (s *Store) releaseLocal(ctx context.Context, wf string, rels []wfRelease, shapeOf func(wfRelease) shape) error {
	type chunk struct {
		sh   shape
		args []any
	}
	byQueue := map[string][]*chunk{}
	var order []string
	for _, r := range rels {
		cs := byQueue[r.queue]
		if cs == nil {
			order = append(order, r.queue)
		}
		if len(cs) == 0 || len(cs[len(cs)-1].args) > wfScriptTasks {
			cs = append(cs, &chunk{args: append(make([]any, 0, 1+wfScriptTasks), wf)})
			byQueue[r.queue] = cs
		}
		c := cs[len(cs)-1]
		c.sh |= shapeOf(r)
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

// settleLocal is settleAll on one server for the reply r of a step that
// left tasks being released: they are enqueued and confirmed in one step
// (releaseLocal, shapeOf as there), then the index brought up to date.
func (s *Store) settleLocal(ctx context.Context, r wfReply, shapeOf func(wfRelease) shape) error {
	if err := s.releaseLocal(ctx, r.wf, r.releases, shapeOf); err != nil {
		return err
	}
	r.releases = nil
	return s.settleAll(ctx, []wfReply{r})
}

// releaseLeft enqueues the tasks of workflow wf that an earlier call left
// being released, named in v as a duplicate's reply names them
// (wfcreate.lua's dup_reply: name, queue, payload): the call that created
// the workflow may have died before enqueueing them, and this call may be
// its retry. local says the store is on one server (releaseLocal), else
// they are released and confirmed in two steps (settleAll). It is the
// sweeper's work done early: on an error, which it returns, they wait for
// the sweeper or for the next retry.
func (s *Store) releaseLeft(ctx context.Context, wf string, v []any, local bool) error {
	var rels []wfRelease
	for i := 0; i+2 < len(v); i += 3 {
		t, _ := v[i].(string)
		q, _ := v[i+1].(string)
		p, _ := v[i+2].(string)
		rels = append(rels, wfRelease{wf: wf, task: t, queue: q, payload: p})
	}
	switch {
	case len(rels) == 0:
		return nil
	case local:
		return s.releaseLocal(ctx, wf, rels, func(r wfRelease) shape { return payloadShape(r.payload) })
	default:
		return s.settleAll(ctx, []wfReply{{wf: wf, releases: rels}})
	}
}

// payloadShape returns the shape a job needs by its payload as a workflow
// stores it, "due|envelope": the envelope's plain-text head says whether
// it has a priority or a group (envelope.go).
func payloadShape(payload string) shape {
	_, v, _ := strings.Cut(payload, "|")
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i < len(v) {
		switch v[i] {
		case 'p':
			return shapePrio
		case 'g':
			return shapeGroups
		}
	}
	return 0
}

// beforeRelease runs the test hook wfBeforeRelease, once.
func (s *Store) beforeRelease() {
	if f := s.wfBeforeRelease.Swap(nil); f != nil {
		(*f)()
	}
}
