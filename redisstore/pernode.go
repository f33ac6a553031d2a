package redisstore

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// runPerNode is runAll on a Redis Cluster: the calls of each master go in
// a pipeline of their own, on that master's connection, and the masters
// are called at once, each on its own goroutine. A node that fails or
// does not answer fails only its own calls, and its retries and timeouts
// hold back no other node's (a cluster pipeline would wait for every node
// and, when the context ends, overwrite the healthy replies with the
// context's error). A call that a node redirected (MOVED, ASK: the slot
// moved, a replica took over) makes the Store reload the topology and is
// sent again through the cluster client, which follows the redirection;
// so is a call whose script the node did not know. A call marked once or
// noResend goes once (see evalCall), and one marked noResend whose
// connection failed goes again through the cluster client
// (resendFailed).
func (s *Store) runPerNode(ctx context.Context, cc *redis.ClusterClient, calls []*evalCall, pre func(redis.Pipeliner)) {
	var wg sync.WaitGroup
	if pre != nil {
		wg.Go(func() {
			_, _ = cc.Pipelined(ctx, func(p redis.Pipeliner) error { pre(p); return nil })
		})
	}
	groups := map[*redis.Client][]*evalCall{}
	for _, c := range calls {
		node, err := cc.MasterForKey(ctx, c.keys[0])
		if err != nil {
			s.observe(err)
			c.cmd = failedCmd(ctx, err)
			continue
		}
		groups[node] = append(groups[node], c)
	}
	for node, group := range groups {
		wg.Go(func() {
			_, _ = node.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, c := range group {
					c.cmd = s.pipeOn(ctx, p, c.once || c.noResend, c.script, c.keys, c.args...)
				}
				return nil
			})
		})
	}
	wg.Wait()
	for _, c := range calls {
		if err := c.cmd.Err(); notLoaded(err) || redirected(err) {
			s.observe(err)
			c.cmd = s.callOn(ctx, s.rdb, c.once || c.noResend, c.script, c.keys, c.args...)
		}
		s.observe(c.cmd.Err())
	}
	s.resendFailed(ctx, s.rdb, calls)
}

// redirected reports whether err is a cluster redirection: the slot is
// served by another node now.
func redirected(err error) bool {
	return redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "ASK")
}
