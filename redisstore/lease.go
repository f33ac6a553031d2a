package redisstore

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// lease is the connection an enqueue batcher's round trips go on, taken
// from the client's pool once for a run of round trips instead of once a
// round trip. go-redis checks a pooled connection's health on every take
// with a recvfrom system call: with 8 producers of lone Enqueues (the
// shared harness's W1), a sixth of the process's time in system calls,
// and a flusher goes on for about 30 round trips a run.
//
// A leading call takes the lease parked in its client's spareSlot, or a
// new one; a flusher carries on with the lease of the leading call whose
// round trip it follows (batcher.flush); when the batcher has nothing
// queued, the lease is parked in the slot for the next leading call, or
// given back when one is parked already (spare.go). So a program that
// calls Enqueue from one goroutine, one call after another, sends them
// all on one connection without the pool's check: 30,000 lone Enqueues
// took a median 1.93 s against 2.23 s, asynq's 2.07 s in the same runs
// (bench/instr, ten runs each, interleaved). A parked lease is taken
// only within spareIdle of its parking, after its last round trip; an
// older one is given back, and the call goes through the pool's checks.
// A batcher keeps at most flightMost connections out of the pool while
// calls are in flight (flight.go: flightMax, or half the pool when that
// is fewer), and its client's slot one while none is.
//
// A lease belongs to one goroutine at a time. Its connection is taken on
// first use, given back by release, and taken again every leaseUses
// round trips: hooks added to the client (AddHook) after a connection was
// taken apply from the next take. A round trip in which any call failed
// gives it back: the next takes another through the pool's checks. A
// lease's calls go once, without go-redis's retries on the connection
// (callOn), which would only find it broken after their backoffs; those
// of a failed round trip that go-redis would have retried (connFailed)
// go again at once through the pool, where go-redis's retries apply: a
// connection killed between two round trips, which the pool's check used
// to catch before use, costs the callers no error. A call whose reply
// was lost with the connection may have run: sent again, it finds its
// job stored and reports it as a duplicate, as after go-redis's own
// retry of a lost reply. A call that timed out is not sent again.
type lease struct {
	client *redis.Client
	conn   *redis.Conn
	uses   int       // round trips sent on conn
	parked time.Time // when it was last parked as a batcher's spare
}

// leaseUses is how many round trips a lease sends on one connection
// before it gives it back and takes another, so that the pool's checks
// (the connection's health, ConnMaxLifetime) still run while calls keep
// coming for a long time: one take in leaseUses round trips.
const leaseUses = 256

// leaseMinPool is the least pool size with which a flusher holds a
// connection. A batcher keeps up to flightMost round trips in flight,
// one flusher's each at most, half the pool at most: with fewer
// connections, those it holds between round trips would keep the
// store's other calls waiting for one.
const leaseMinPool = 4

// newLease returns a lease on the store's client, or nil (every round
// trip takes a connection from the pool) when the client is not a plain
// *redis.Client (a Cluster or a Ring picks a node per call), its pool is
// smaller than leaseMinPool (PoolSize, or MaxActiveConns when set), or
// its retries are off (MaxRetries -1): a lease sends a failed call again
// only where go-redis would have retried it; nor with Config.Replicas,
// whose round trips go on connections of their own (runDurable).
func (s *Store) newLease() *lease {
	c, ok := s.rdb.(*redis.Client)
	if !ok {
		return nil
	}
	o := c.Options()
	if s.opts.Replicas > 0 || o.PoolSize < leaseMinPool || (o.MaxActiveConns > 0 && o.MaxActiveConns < leaseMinPool) || o.MaxRetries <= 0 {
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

// release gives the lease's connection back to the pool, which closes it
// when it broke. A nil lease holds none.
//
// A flusher lingers for more calls after answering its last ones, and a
// parked lease waits for the next call, so a program may close its
// client before a lease gives its connection back: the client's Close
// closed that connection with the pool, and giving it back would make
// go-redis log an "Unexpected conn ... CLOSED" line. A closed pool
// counts no connection, though the lease holds one, which tells release
// to leave it.
func (l *lease) release() {
	if l == nil || l.conn == nil {
		return
	}
	if l.client.PoolStats().TotalConns > 0 {
		_ = l.conn.Close()
	}
	l.conn = nil
}

// runLeased is runAll for calls that go on lease l (see lease).
func (s *Store) runLeased(ctx context.Context, l *lease, calls []*evalCall, pre func(redis.Pipeliner)) {
	s.runOn(ctx, l.runner(), calls, pre)
	var failed []*evalCall
	failedAny := false
	for _, c := range calls {
		err := c.cmd.Err()
		if err == nil || errors.Is(err, redis.Nil) {
			continue
		}
		failedAny = true
		if connFailed(err) {
			failed = append(failed, c)
		}
	}
	if !failedAny {
		return
	}
	l.release()
	if len(failed) > 0 {
		// pre's commands (the queues' registration) are idempotent.
		s.runOn(ctx, s.rdb, failed, pre)
	}
}

// connFailed reports whether a call on a lease that failed with err goes
// again through the pool: where go-redis would have sent it again had it
// gone through the pool (its shouldRetry), since a lease's calls go once
// (callOn). That is when the connection failed under the call (closed,
// reset), or when the server replied that it could not run it then
// (retriedReplies, READONLY among them after a failover); the pool's
// path then retries, with go-redis's backoffs where the reply asks for
// them. Not after a timeout, nor at the end of the call's context: the
// call may have run, and sent again later it could store anew a job that
// ran and was deleted meanwhile (the fault suite's stalled link showed
// jobs run twice); go-redis does not retry a lone command's read timeout
// either. Nor when the pool had no connection to give (ErrPoolTimeout),
// nor after any other reply of the server.
func connFailed(err error) bool {
	if errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return false
	}
	if _, ok := errors.AsType[redis.Error](err); !ok {
		return true
	}
	for _, p := range retriedReplies {
		if redis.HasErrorPrefix(err, p) {
			return true
		}
	}
	return false
}

// retriedReplies are the starts of the server's replies after which
// go-redis sends a command again: the server did not run it.
var retriedReplies = []string{"READONLY", "LOADING", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "NOREPLICAS", "max number of clients reached"}
