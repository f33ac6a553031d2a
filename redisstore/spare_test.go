package redisstore_test

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestLoneEnqueuesShareOneConnection: Enqueues called one after another
// from one goroutine go on one connection, taken from the pool for the
// first only (each take costs a system call for the pool's check of the
// connection's health; one more if the test stalled for the second after
// which a parked connection goes back to the pool); with the parked
// connection older than the bound (SetSpareIdle 0), each call takes one
// through the pool's check again.
func TestLoneEnqueuesShareOneConnection(t *testing.T) {
	for _, tc := range []struct {
		name      string
		idle      time.Duration
		takesFrom uint32
		takesTo   uint32
	}{
		{"Parked", time.Minute, 0, 1},
		{"ParkedTooLong", 0, 20, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, redistest.Private())
			rdb := srv.Client(t)
			s := storeOn(t, rdb, nil)
			redisstore.SetSpareIdle(s, tc.idle)
			mustEnqueue(t, s, job("q", "warm-up"))
			before := poolTakes(rdb)
			var ids []string
			for i := range 20 {
				id := fmt.Sprintf("lone-%02d", i)
				mustEnqueue(t, s, job("q", id))
				ids = append(ids, id)
			}
			if takes := poolTakes(rdb) - before; takes < tc.takesFrom || takes > tc.takesTo {
				t.Errorf("20 lone Enqueues asked the pool for a connection %d times, want %d to %d", takes, tc.takesFrom, tc.takesTo)
			}
			storedOnce(t, s, ids)
		})
	}
}

// TestParkedConnectionKilled: when the connection parked between two
// lone Enqueues is killed (a server restart, a middlebox's idle timeout),
// the next Enqueue goes again on a connection from the pool and returns
// without an error, its job stored once; the call after it takes a
// connection through the pool's checks, and the next ones go on with it.
func TestParkedConnectionKilled(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	admin := srv.Client(t)
	s := storeOn(t, rdb, &redisstore.Config{})
	mustEnqueue(t, s, job("q", "warm-up"))
	mustEnqueue(t, s, job("q", "before"))
	if err := admin.ClientKillByFilter(t.Context(), "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("q", "after-kill"))
	for i, want := range []uint32{1, 0} {
		before := poolTakes(rdb)
		mustEnqueue(t, s, job("q", fmt.Sprintf("next-%d", i)))
		if takes := poolTakes(rdb) - before; takes != want {
			t.Errorf("Enqueue %d after the one that found its connection killed asked the pool for a connection %d times, want %d", i+1, takes, want)
		}
	}
	storedOnce(t, s, []string{"before", "after-kill", "next-0", "next-1"})
}

// TestStoresOnOneClientParkOneConnection: the stores on one client park
// one connection between their calls, whatever their number: 30 stores,
// each calling Enqueue a few times, on a client of 5 connections, leave
// at most one of them out of the pool (with one parked per store, the
// sixth store's call would wait for the pool's timeout).
func TestStoresOnOneClientParkOneConnection(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t, func(o *redis.Options) { o.PoolSize = 5 })
	for i := range 30 {
		s := storeOn(t, rdb, &redisstore.Config{Prefix: fmt.Sprintf("%s-%d", redistest.Prefix(t), i)})
		for j := range 3 {
			mustEnqueue(t, s, job("q", fmt.Sprintf("s%d-%d", i, j)))
		}
	}
	if st := rdb.PoolStats(); st.TotalConns-st.IdleConns > 1 {
		t.Errorf("after 30 stores' Enqueues, %d of the client's %d connections are out of the pool, want at most 1", st.TotalConns-st.IdleConns, st.TotalConns)
	}
}

// TestParkedConnectionGoesBack: a program that stops enqueueing gets the
// parked connection back in its client's pool (after it waited
// spareIdle, a second).
func TestParkedConnectionGoesBack(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	s := storeOn(t, rdb, nil)
	gaveBack := make(chan struct{}, 1)
	redisstore.OnSpareGivenBack(s, func() {
		select {
		case gaveBack <- struct{}{}:
		default:
		}
	})
	mustEnqueue(t, s, job("q", "a"))
	mustEnqueue(t, s, job("q", "b"))
	if st := rdb.PoolStats(); st.TotalConns == st.IdleConns {
		t.Fatalf("no connection is parked after two Enqueues (pool: %+v)", st)
	}
	select {
	case <-gaveBack:
	case <-time.After(10 * time.Second):
		t.Fatal("10 s after the last Enqueue, the parked connection was not given back")
	}
	if st := rdb.PoolStats(); st.TotalConns != st.IdleConns {
		t.Errorf("after the parked connection was given back, %d of the client's %d connections are still out of the pool", st.TotalConns-st.IdleConns, st.TotalConns)
	}
}

// TestTimedOutCallIsNotSentAgain: a lone Enqueue whose reply does not
// come within the client's ReadTimeout returns the timeout, and its call
// is not sent again: it may have run, and sent again later it could
// store anew a job that ran and was deleted meanwhile. Here the server is
// paused for longer than the read timeout, and a call sent again at once
// would run when the pause ends, within its own timeout.
func TestTimedOutCallIsNotSentAgain(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t, func(o *redis.Options) { o.ReadTimeout = 200 * time.Millisecond })
	admin := srv.Client(t)
	var fcalls atomic.Int32
	rdb.AddHook(eachCommand(func(cmd redis.Cmder) {
		if isScriptCall(cmd) {
			fcalls.Add(1)
		}
	}))
	// The libraries are loaded through a client without the short read
	// timeout: a FUNCTION LOAD on a loaded machine can take longer.
	mustEnqueue(t, storeOn(t, admin, nil), job("q", "load"))
	s := storeOn(t, rdb, nil)
	mustEnqueue(t, s, job("q", "warm-up")) // parks its connection
	before := fcalls.Load()
	if err := admin.Do(t.Context(), "CLIENT", "PAUSE", 350, "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "stalled")})
	if err == nil {
		t.Log("the stalled Enqueue returned no error: the pause ended before its call reached the server, or it was sent again")
	} else if ne, ok := errors.AsType[net.Error](err); !ok || !ne.Timeout() {
		t.Errorf("the stalled Enqueue returned %v, want a timeout", err)
	}
	if n := fcalls.Load() - before; n != 1 {
		t.Errorf("the stalled Enqueue sent %d FCALLs, want 1", n)
	}
}
