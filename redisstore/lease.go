package redisstore

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// lease is the connection an enqueue batcher's flusher sends its run of
// round trips on (batcher.flush), taken from the client's pool once for
// the run instead of once a round trip. go-redis checks a pooled
// connection's health on every take with a recvfrom system call, which
// cost a flusher a fifth of its system time: 8 producers of lone
// Enqueues (the shared harness's W1) keep a flusher going for about 30
// round trips a run.
//
// A lease belongs to one goroutine at a time. Its connection is taken on
// first use and given back by release. A call that got no reply from
// Redis on it (a broken or killed connection) is sent again through the
// pool, with go-redis's retries, as it would have been without the lease;
// the connection is dropped and the lease's next use takes another. It
// also takes another every leaseUses round trips.
type lease struct {
	client *redis.Client
	conn   *redis.Conn
	uses   int // round trips sent on conn
}

// leaseUses is how many round trips a lease sends on one connection
// before it gives it back and takes another, so that the pool's checks
// (the connection's health, ConnMaxLifetime) still run while calls keep
// coming for a long time: one take in leaseUses round trips.
const leaseUses = 256

// leaseMinPool is the least pool size with which a flusher holds a
// connection: with fewer, the connection it holds between round trips
// would keep the store's other calls waiting for one.
const leaseMinPool = 4

// newLease returns a lease on the store's client, or nil when the client
// is not a plain *redis.Client (a Cluster or a Ring picks a node per
// call) or its pool is smaller than leaseMinPool.
func (s *Store) newLease() *lease {
	c, ok := s.rdb.(*redis.Client)
	if !ok {
		return nil
	}
	o := c.Options()
	if o.PoolSize < leaseMinPool || (o.MaxActiveConns > 0 && o.MaxActiveConns < leaseMinPool) {
		return nil
	}
	return &lease{client: c}
}

// runner returns the lease's connection for one round trip, taking one
// if it holds none or has sent leaseUses round trips on it.
func (l *lease) runner() *redis.Conn {
	if l.uses >= leaseUses {
		l.release()
	}
	if l.conn == nil {
		l.conn, l.uses = l.client.Conn(), 0
	}
	l.uses++
	return l.conn
}

// release gives the lease's connection back to the pool, or closes it
// when it broke. A nil lease holds none.
func (l *lease) release() {
	if l != nil && l.conn != nil {
		_ = l.conn.Close()
		l.conn = nil
	}
}

// unanswered returns the calls of calls that did not run on the lease's
// connection and that the pool's path would have sent again (go-redis
// retries them on another connection): those that got no reply, and
// those the server refused for its state (a demoted master's READONLY,
// LOADING, MASTERDOWN, TRYAGAIN).
func unanswered(calls []*evalCall) []*evalCall {
	var out []*evalCall
	for _, c := range calls {
		if err := c.cmd.Err(); err != nil && !ranOrFailed(err) {
			out = append(out, c)
		}
	}
	return out
}

// ranOrFailed reports whether err is a reply of Redis that sending the
// call again elsewhere would not change: redis.Nil, a script's error, a
// refusal of its arguments.
func ranOrFailed(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	for _, notRun := range []string{"READONLY", "LOADING", "MASTERDOWN", "TRYAGAIN"} {
		if redis.HasErrorPrefix(err, notRun) {
			return false
		}
	}
	return true
}

// runLeased is runAll for calls that go on lease l: those that got no
// reply on its connection go again through the pool, after pre's
// commands (idempotent), and the connection is dropped.
func (s *Store) runLeased(ctx context.Context, l *lease, calls []*evalCall, pre func(redis.Pipeliner)) {
	s.runOn(ctx, l.runner(), calls, pre)
	if lost := unanswered(calls); len(lost) > 0 {
		l.release()
		s.runOn(ctx, s.rdb, lost, pre)
	}
}
