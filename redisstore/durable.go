package redisstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// runDurable is runAll for Config.Replicas: the calls go to each master
// they belong to in one pipeline ending with a WAIT on the same connection
// (WAIT counts the replicas that have the writes of its own connection), and
// a call whose master's WAIT saw too few replicas gets an error wrapping
// ErrNotReplicated instead of its reply. The commands of pre (queue
// registration, store-wide keys) go first, on their own.
func (s *Store) runDurable(ctx context.Context, calls []*evalCall, pre func(redis.Pipeliner)) {
	if pre != nil {
		_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error { pre(p); return nil })
	}
	cc, sharded := s.rdb.(*redis.ClusterClient)
	if !sharded {
		s.pipelineWait(ctx, s.rdb, calls)
		return
	}
	s.durablePerSlot(ctx, cc, calls)
	// A call a node redirected (its slot moved to a promoted replica) did
	// not run: once the topology is reloaded, it goes to the new master.
	var moved []*evalCall
	for _, c := range calls {
		if redirected(c.cmd.Err()) {
			moved = append(moved, c)
		}
	}
	if len(moved) == 0 {
		return
	}
	s.awaitTopology(ctx, cc, moved[0].keys[0])
	s.durablePerSlot(ctx, cc, moved)
}

// durablePerSlot runs pipelineWait for each slot's calls on its master, at
// once.
func (s *Store) durablePerSlot(ctx context.Context, cc *redis.ClusterClient, calls []*evalCall) {
	bySlot := map[int][]*evalCall{}
	for _, c := range calls {
		slot := keySlot(c.keys[0])
		bySlot[slot] = append(bySlot[slot], c)
	}
	var wg sync.WaitGroup
	for _, group := range bySlot {
		wg.Go(func() {
			node, err := cc.MasterForKey(ctx, group[0].keys[0])
			if err != nil {
				s.observe(err)
				for _, c := range group {
					c.cmd = failedCmd(ctx, err)
				}
				return
			}
			s.pipelineWait(ctx, node, group)
		})
	}
	wg.Wait()
}

// awaitTopology waits, up to a second, until the client's view of the
// master of key's slot changes after a redirection (go-redis reloads the
// topology in the background).
func (s *Store) awaitTopology(ctx context.Context, cc *redis.ClusterClient, key string) {
	before, err := cc.MasterForKey(ctx, key)
	if err != nil {
		return
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		cc.ReloadState(ctx)
		sleepCtx(ctx, 20*time.Millisecond)
		if now, err := cc.MasterForKey(ctx, key); err == nil && now != before {
			return
		}
	}
}

// pipelineWait sends calls and a WAIT in one pipeline on c (one connection),
// sending a call again, its script loaded, when the server did not know
// it (and waiting again for that).
func (s *Store) pipelineWait(ctx context.Context, c redis.Cmdable, calls []*evalCall) {
	run := func(calls []*evalCall, source, again bool) {
		var wait *redis.IntCmd
		_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, call := range calls {
				// A plain script (lua.go: @eval) the server did not know
				// goes again with its source: no function load gives it.
				if source || again && call.script.plain {
					call.cmd = s.forServer(call.script).eval.Eval(ctx, p, call.keys, call.args...)
				} else {
					call.cmd = s.pipe(ctx, p, call.script, call.keys, call.args...)
				}
			}
			wait = redis.NewIntCmd(ctx, "wait", s.opts.Replicas, s.opts.ReplicaTimeout.Milliseconds())
			return p.Process(ctx, wait)
		})
		n, err := wait.Result()
		if err == nil && n < int64(s.opts.Replicas) {
			err = fmt.Errorf("%w: %d of %d replicas within %v", ErrNotReplicated, n, s.opts.Replicas, s.opts.ReplicaTimeout)
		}
		for _, call := range calls {
			if call.cmd.Err() == nil && err != nil {
				call.cmd = failedCmd(ctx, err)
			}
			s.observe(call.cmd.Err())
		}
	}
	run(calls, false, false)
	var again []*evalCall
	for _, call := range calls {
		if notLoaded(call.cmd.Err()) {
			again = append(again, call)
		}
	}
	if len(again) > 0 {
		// Sent again as functions once loaded; as plain scripts, with
		// their source, when the store calls plain scripts or the load
		// failed (a server at maxmemory refuses it).
		source := true
		if s.fmode.on.Load() {
			want := make([]*script, 0, len(again))
			for _, call := range again {
				if !call.script.plain && !slices.Contains(want, call.script) {
					want = append(want, call.script)
				}
			}
			if len(want) > 0 {
				source = !s.reloadFunctions(ctx, again[0].keys, want...)
			}
		}
		run(again, source, true)
	}
}

// failedCmd is a script reply that failed with err.
func failedCmd(ctx context.Context, err error) *redis.Cmd {
	cmd := redis.NewCmd(ctx)
	cmd.SetErr(err)
	return cmd
}
