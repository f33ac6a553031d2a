package redisstore

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/redis/go-redis/v9"
)

// spareIdle bounds how long a parked lease (spareSlot) may sit unused and
// still carry a leading call's round trip without the pool's checks; a
// parked lease is given back to the pool once it has waited that long.
// A connection idle for long is the one a server's timeout or a
// middlebox may have closed, and a program that stopped enqueueing gets
// its connection back in the pool.
const spareIdle = time.Second

// spareSlot holds the lease parked between the enqueue round trips of
// the stores on one client: the next leading call takes it instead of a
// connection from the pool (see lease). There is one slot per
// *redis.Client (sparesOf), whatever the number of stores on it, so a
// client has at most one connection parked; a timer gives it back after
// spareIdle unused. A nil slot (a Cluster, a Ring, or a store with
// Config.Replicas) parks nothing.
// Its methods are safe for concurrent use.
type spareSlot struct {
	mu    sync.Mutex
	l     *lease      // the parked lease, or nil
	timer *time.Timer // gives l back after spareIdle; nil until first armed
	armed bool        // timer will fire
	// swept, set by tests only, runs after the timer gave a lease back.
	swept atomic.Pointer[func()]
}

// spares maps each client (weakly: the entry goes when the client is
// collected) to its spareSlot.
var spares sync.Map // weak.Pointer[redis.Client] -> *spareSlot

// sparesOf returns client's spareSlot, made on first use.
func sparesOf(client *redis.Client) *spareSlot {
	key := weak.Make(client)
	if v, ok := spares.Load(key); ok {
		return v.(*spareSlot)
	}
	v, loaded := spares.LoadOrStore(key, &spareSlot{})
	if !loaded {
		runtime.AddCleanup(client, func(k weak.Pointer[redis.Client]) { spares.Delete(k) }, key)
	}
	return v.(*spareSlot)
}

// take removes the parked lease from the slot and returns it, or nil.
func (s *spareSlot) take() *lease {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	l := s.l
	s.l = nil
	s.mu.Unlock()
	return l
}

// park keeps l in the slot when it holds a connection, the slot is empty
// and no call waits for a connection of the pool (one parked would keep
// it waiting), and returns nil; else it returns l, for the caller to
// give back. A batcher parks with its own lock held, so that its next
// leading call finds the lease parked.
func (s *spareSlot) park(l *lease) *lease {
	if s == nil || l == nil || l.conn == nil || l.client.PoolStats().PendingRequests > 0 {
		return l
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.l != nil {
		return l
	}
	l.parked = time.Now()
	s.l = l
	if !s.armed {
		s.armed = true
		if s.timer == nil {
			s.timer = time.AfterFunc(spareIdle, s.sweep)
		} else {
			s.timer.Reset(spareIdle)
		}
	}
	return nil
}

// sweep, run by the slot's timer, gives the parked lease back when it
// has waited spareIdle, or sets the timer for when it will have.
func (s *spareSlot) sweep() {
	s.mu.Lock()
	l := s.l
	if l == nil {
		s.armed = false
		s.mu.Unlock()
		return
	}
	if wait := spareIdle - time.Since(l.parked); wait > 0 {
		s.timer.Reset(wait)
		s.mu.Unlock()
		return
	}
	s.l = nil
	s.armed = false
	s.mu.Unlock()
	l.release()
	if f := s.swept.Load(); f != nil {
		(*f)()
	}
}
