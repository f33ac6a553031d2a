package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// TestReplicasCutBeforeWaitReplyFails: with Config.Replicas, an enqueue
// whose connection breaks after the script's reply came back and before
// WAIT's did (the master killed while it waited for its replica, as the
// fault suite's scenario 12 does) fails: nothing confirmed that a replica
// has the job. It once returned success, reading the script's reply from
// a call that had failed, and a failover then lost the job. Both ways a
// client reaches the master are tried: one attempt (a Cluster's node
// clients) and go-redis's retries (a plain client, whose retry finds the
// job stored).
func TestReplicasCutBeforeWaitReplyFails(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	for _, tc := range []struct {
		name    string
		retries int
	}{{"one attempt", -1}, {"go-redis retries", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			cut := startWaitCutter(t, srv.Addr)
			rdb := srv.Client(t, func(o *redis.Options) {
				o.Addr = cut.addr()
				o.MaxRetries = tc.retries
			})
			// A replica never comes: WAIT answers 0 after a second, long
			// after the script's reply. Two enqueues first, uncut, so that
			// the one cut takes the lean way, whose reply for one job is a
			// string (lua/lean.lua), as in scenario 12.
			s := storeOn(t, rdb, &redisstore.Config{Replicas: 1, ReplicaTimeout: time.Second})
			for _, id := range []string{"w1", "w2"} {
				if _, err := s.Enqueue(context.Background(), []*store.NewJob{job("q", id)}); !errors.Is(err, redisstore.ErrNotReplicated) {
					t.Fatalf("Enqueue with no replica and nothing cut: %v; want ErrNotReplicated", err)
				}
			}
			cut.arm.Store(true)
			res, err := s.Enqueue(context.Background(), []*store.NewJob{job("q", "a")})
			if cut.cuts.Load() == 0 {
				t.Fatal("the cutter closed no connection between a reply and WAIT's: the test did not happen")
			}
			if err == nil {
				t.Fatalf("Enqueue with Replicas 1 whose WAIT reply never came: %+v, nil; want an error (no replica confirmed the job)", res)
			}
			if errors.Is(err, redisstore.ErrNotReplicated) {
				t.Fatalf("Enqueue: %v; want the connection's error, not WAIT's answer (the cutter let WAIT's reply through)", err)
			}
		})
	}
}

// waitCutter is a TCP proxy in front of a Redis server that, once armed,
// closes a client's connection right after passing on a reply, once that
// client has sent a WAIT: the server's replies to the commands before the
// WAIT reach the client, WAIT's never does.
type waitCutter struct {
	ln   net.Listener
	to   string
	cuts atomic.Int32
	arm  atomic.Bool
	wg   sync.WaitGroup
}

func startWaitCutter(t *testing.T, to string) *waitCutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &waitCutter{ln: ln, to: to}
	w.wg.Go(w.accept)
	t.Cleanup(func() { _ = ln.Close(); w.wg.Wait() })
	return w
}

func (w *waitCutter) addr() string { return w.ln.Addr().String() }

func (w *waitCutter) accept() {
	for {
		c, err := w.ln.Accept()
		if err != nil {
			return
		}
		w.wg.Go(func() { w.serve(c) })
	}
}

func (w *waitCutter) serve(c net.Conn) {
	s, err := net.Dial("tcp", w.to)
	if err != nil {
		_ = c.Close()
		return
	}
	var sawWait atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer s.Close() // the client went away: so does its server connection
		buf := make([]byte, 64<<10)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if bytes.Contains(bytes.ToLower(buf[:n]), []byte("\r\nwait\r\n")) {
					sawWait.Store(true)
				}
				if _, werr := s.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				break
			}
			if sawWait.Load() && w.arm.Load() {
				w.cuts.Add(1)
				break
			}
		}
		if err != nil {
			break
		}
	}
	// The cut, or the server gone: closing the client's side ends the
	// copy towards the server, which closes the server's.
	_ = c.Close()
	<-done
}
