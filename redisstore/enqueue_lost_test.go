package redisstore_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestEnqueueLostReplySaysMayBeStored: an enqueue whose request reached
// Redis but whose reply never came back (a link that stopped answering:
// the client's read timeout), or whose connection was closed once the
// request was on its way (go-redis sends it again, and each try's
// connection is closed too), fails saying the job may be stored, with the
// advice a cut call gives, and keeps its class: ErrUnavailable and
// go-redis's net.Error. The job is stored, and enqueued again with its ID
// it comes back as a duplicate, as the error says. An outside trial saw
// "redisstore: enqueue into "big": i/o timeout" alone, for jobs 12 of 16
// of which were stored. Coalesced or not, the calls say the same.
func TestEnqueueLostReplySaysMayBeStored(t *testing.T) {
	for _, fault := range []struct {
		name string
		mode int32
	}{{"lost", proxyLoseReplies}, {"closed", proxyCloseAfterRequest}} {
		for _, noCoalescing := range []bool{false, true} {
			name := fault.name + "/coalesced"
			if noCoalescing {
				name = fault.name + "/NoCoalescing"
			}
			t.Run(name, func(t *testing.T) {
				srv := redistest.Start(t)
				p := startReplyCutter(t, srv.Addr, nil)
				rdb := srv.Client(t, func(o *redis.Options) {
					o.Addr = p.addr()
					o.ReadTimeout = 200 * time.Millisecond
					o.MaxRetryBackoff = 20 * time.Millisecond
				})
				prefix := redistest.Prefix(t)
				s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: noCoalescing})
				direct := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: prefix, NoCoalescing: noCoalescing})
				ctx := context.Background()
				mustEnqueue(t, s, job("big", "before")) // the store's first call: its checks and loads

				p.mode.Store(fault.mode)
				_, err := s.Enqueue(ctx, []*store.NewJob{job("big", "lost")})
				p.mode.Store(proxyPass)
				if err == nil {
					t.Fatal("Enqueue through a link that loses the reply succeeded")
				}
				msg := err.Error()
				t.Log(msg)
				for _, want := range []string{`enqueue into "big"`, "the job may be stored (enqueue it again with the same ID: if it is stored it comes back as a duplicate)"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not say %q", msg, want)
					}
				}
				if !errors.Is(err, redisstore.ErrUnavailable) {
					t.Errorf("error %q is not ErrUnavailable", msg)
				}
				if !store.MayBeStored(err) {
					t.Errorf("store.MayBeStored(%q) is false", msg)
				}
				if _, ok := errors.AsType[net.Error](err); !ok && !errors.Is(err, io.EOF) {
					t.Errorf("error %q keeps no net.Error nor io.EOF", msg)
				}
				if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
					t.Errorf("error %q wraps a context's error, of a context that did not end", msg)
				}

				// As it says: the job is stored, and comes back a duplicate.
				waitStored(t, direct, "big", "lost")
				res, err := direct.Enqueue(ctx, []*store.NewJob{job("big", "lost")})
				if err != nil || !res[0].Duplicate {
					t.Fatalf("the job enqueued again: %+v, %v; want a duplicate", res, err)
				}
			})
		}
	}
}

// TestEnqueueLostReplyOfSeveralJobs: a call of several jobs of one queue
// whose reply is lost speaks of "the jobs" and names their queue, on
// either path.
func TestEnqueueLostReplyOfSeveralJobs(t *testing.T) {
	for _, noCoalescing := range []bool{false, true} {
		t.Run(map[bool]string{false: "coalesced", true: "NoCoalescing"}[noCoalescing], func(t *testing.T) {
			srv := redistest.Start(t)
			p := startReplyCutter(t, srv.Addr, nil)
			rdb := srv.Client(t, func(o *redis.Options) {
				o.Addr = p.addr()
				o.ReadTimeout = 200 * time.Millisecond
			})
			s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: noCoalescing})
			mustEnqueue(t, s, job("big", "before"))

			p.mode.Store(proxyLoseReplies)
			_, err := s.Enqueue(context.Background(), []*store.NewJob{job("big", "a"), job("big", "b"), job("big", "c")})
			p.mode.Store(proxyPass)
			if err == nil {
				t.Fatal("Enqueue through a link that loses the reply succeeded")
			}
			t.Log(err)
			want := "the jobs may be stored (enqueue them again with the same IDs: one that is stored comes back as a duplicate)"
			if msg := err.Error(); !strings.Contains(msg, `enqueue into "big"`) || !strings.Contains(msg, want) {
				t.Errorf("error %q: want it to name the queue and say %q", msg, want)
			}
			if !errors.Is(err, redisstore.ErrUnavailable) {
				t.Errorf("error %v is not ErrUnavailable", err)
			}
		})
	}
}

// TestEnqueueRefusedConnectionSaysNotMayBeStored: an enqueue that finds
// no connection (the dial refused, on each of go-redis's tries) never
// wrote its job: its error is ErrUnavailable and does not say the job may
// be stored. Coalesced or not, the calls say the same.
func TestEnqueueRefusedConnectionSaysNotMayBeStored(t *testing.T) {
	for _, noCoalescing := range []bool{false, true} {
		t.Run(map[bool]string{false: "coalesced", true: "NoCoalescing"}[noCoalescing], func(t *testing.T) {
			d, s := refusableStore(t, noCoalescing, 0, 20*time.Millisecond)
			mustEnqueue(t, s, job("big", "before"))

			d.goDown()
			_, err := s.Enqueue(context.Background(), []*store.NewJob{job("big", "refused")})
			if err == nil {
				t.Fatal("Enqueue with every dial refused succeeded")
			}
			msg := err.Error()
			t.Log(msg)
			if strings.Contains(msg, "may be stored") || store.MayBeStored(err) {
				t.Errorf("error %q says the job may be stored: it was never written", msg)
			}
			if !strings.Contains(msg, "connection refused") {
				t.Errorf("error %q: want the dial's refusal", msg)
			}
			if !errors.Is(err, redisstore.ErrUnavailable) {
				t.Errorf("error %q is not ErrUnavailable", msg)
			}
		})
	}
}

// TestEnqueueRefusedUntilItsDeadlineSaysNotStored: an enqueue whose
// every dial is refused until its context's deadline passes never left
// the process: its error says the job is not stored. It said "the job may be stored" (an outside trial: 23 such
// calls while Redis restarted, none of them stored).
func TestEnqueueRefusedUntilItsDeadlineSaysNotStored(t *testing.T) {
	for _, noCoalescing := range []bool{false, true} {
		t.Run(map[bool]string{false: "coalesced", true: "NoCoalescing"}[noCoalescing], func(t *testing.T) {
			// go-redis waits between its tries past the deadline.
			d, s := refusableStore(t, noCoalescing, time.Second, time.Second)
			mustEnqueue(t, s, job("big", "before"))

			d.goDown()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err := s.Enqueue(ctx, []*store.NewJob{job("big", "refused")})
			if err == nil {
				t.Fatal("Enqueue with every dial refused succeeded")
			}
			msg := err.Error()
			t.Log(msg)
			if store.MayBeStored(err) || !strings.Contains(msg, "not stored") {
				t.Errorf("error %q (MayBeStored %v): want it to say the job is not stored: it was never written", msg, store.MayBeStored(err))
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %q does not match context.DeadlineExceeded", msg)
			}
		})
	}
}

// TestEnqueueClosedThenRefusedSaysMayBeStored: an enqueue whose request
// went out on a connection that was then closed, and which go-redis sent
// again only to find every dial refused, ends with the dial's error, but
// its first try may have stored the job: the error says so.
func TestEnqueueClosedThenRefusedSaysMayBeStored(t *testing.T) {
	for _, noCoalescing := range []bool{false, true} {
		t.Run(map[bool]string{false: "coalesced", true: "NoCoalescing"}[noCoalescing], func(t *testing.T) {
			srv := redistest.Start(t)
			d := &switchDialer{dead: deadAddr(t)}
			p := startReplyCutter(t, srv.Addr, d.goDown)
			d.addr = p.addr() // before the client's first dial
			rdb := srv.Client(t, func(o *redis.Options) {
				o.Dialer = d.dial
				o.MaxRetryBackoff = 20 * time.Millisecond
			})
			prefix := redistest.Prefix(t)
			s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: noCoalescing})
			mustEnqueue(t, s, job("big", "before"))

			p.mode.Store(proxyCloseAfterRequest)
			_, err := s.Enqueue(context.Background(), []*store.NewJob{job("big", "closed")})
			if err == nil {
				t.Fatal("Enqueue succeeded")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, "the job may be stored") || !store.MayBeStored(err) {
				t.Errorf("error %q does not say the job may be stored", msg)
			}
			if !errors.Is(err, redisstore.ErrUnavailable) {
				t.Errorf("error %q is not ErrUnavailable", msg)
			}
			waitStored(t, storeOn(t, srv.Client(t), &redisstore.Config{Prefix: prefix}), "big", "closed")
		})
	}
}

// TestEnqueueErrorReplySaysNotMayBeStored: an enqueue that Redis answers
// with an error (OOM: the server at maxmemory refused the script) was
// refused, not lost: its error is ErrOOM and does not say the job may be
// stored, on either path.
func TestEnqueueErrorReplySaysNotMayBeStored(t *testing.T) {
	for _, noCoalescing := range []bool{false, true} {
		t.Run(map[bool]string{false: "coalesced", true: "NoCoalescing"}[noCoalescing], func(t *testing.T) {
			ctx := context.Background()
			srv := redistest.Start(t, redistest.Private())
			rdb := srv.Client(t)
			s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: noCoalescing})
			mustEnqueue(t, s, job("big", "before"))
			if err := rdb.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
				t.Fatal(err)
			}
			_, err := s.Enqueue(ctx, []*store.NewJob{job("big", "refused")})
			if !errors.Is(err, redisstore.ErrOOM) {
				t.Fatalf("Enqueue at maxmemory: %v, want ErrOOM", err)
			}
			t.Log(err)
			if strings.Contains(err.Error(), "may be stored") || store.MayBeStored(err) {
				t.Errorf("error %q says the job may be stored: Redis refused it", err)
			}
		})
	}
}

// Modes of a replyCutter.
const (
	proxyPass              int32 = iota // requests and replies pass
	proxyLoseReplies                    // requests pass, replies are dropped
	proxyCloseAfterRequest              // a request passes, then the client's connection is closed
)

// replyCutter is a TCP proxy in front of a server that passes requests
// on and, by its mode, passes the replies back, drops them (a link that
// stopped answering: the client's read timeout), or closes the client's
// connection once a request went on (the connection reset mid-call). The
// server's side of each connection stays open until the test ends, so
// that every request passed on runs.
type replyCutter struct {
	ln   net.Listener
	mode atomic.Int32
	// closed, when set, is called after a client's connection is closed
	// (proxyCloseAfterRequest).
	closed func()
}

// startReplyCutter starts a replyCutter in front of target that calls
// closed, when not nil, as its closed.
func startReplyCutter(t *testing.T, target string, closed func()) *replyCutter {
	t.Helper()
	p := &replyCutter{closed: closed}
	p.ln = proxyTo(t, target, func(c, up net.Conn) {
		go p.requests(c, up)
		go p.replies(c, up)
	})
	return p
}

func (p *replyCutter) addr() string { return p.ln.Addr().String() }

// requests passes the client's requests on to the server.
func (p *replyCutter) requests(c, up net.Conn) {
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := up.Write(buf[:n]); werr != nil {
				_ = c.Close()
				return
			}
			if p.mode.Load() == proxyCloseAfterRequest {
				_ = c.Close()
				if p.closed != nil {
					p.closed()
				}
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// replies passes the server's replies back, or drops them.
func (p *replyCutter) replies(c, up net.Conn) {
	buf := make([]byte, 64<<10)
	for {
		n, err := up.Read(buf)
		if n > 0 && p.mode.Load() == proxyPass {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			_ = c.Close()
			return
		}
	}
}

// switchDialer dials a server until it goes down; then every dial goes to
// an address nothing listens on (refused), and the connections it made
// are closed, so that the pool's check drops them.
type switchDialer struct {
	addr, dead string
	mu         sync.Mutex
	down       bool
	conns      []net.Conn
}

func (d *switchDialer) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var nd net.Dialer
	if d.down {
		return nd.DialContext(ctx, network, d.dead)
	}
	c, err := nd.DialContext(ctx, network, d.addr)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *switchDialer) goDown() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = true
	for _, c := range d.conns {
		_ = c.Close()
	}
}

// deadAddr returns a local address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// waitStored waits until job id of queue is stored, and fails t when it
// is not within 10 s.
func waitStored(t *testing.T, s *redisstore.Store, queue, id string) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, func() error {
		_, err := s.GetJob(context.Background(), queue, id)
		return err
	})
}

// refusableStore returns a store (NoCoalescing as given) on a fresh
// server whose client dials through d, which refuses every dial once
// d.goDown is called; go-redis waits between its tries from minBackoff
// to maxBackoff (0: its default). The client has two connections, and no
// lease: each call takes a checked one from the pool.
func refusableStore(t *testing.T, noCoalescing bool, minBackoff, maxBackoff time.Duration) (*switchDialer, *redisstore.Store) {
	t.Helper()
	srv := redistest.Start(t)
	d := &switchDialer{addr: srv.Addr, dead: deadAddr(t)}
	rdb := srv.Client(t, func(o *redis.Options) {
		o.Dialer = d.dial
		o.PoolSize = 2
		if minBackoff > 0 {
			o.MinRetryBackoff = minBackoff
		}
		o.MaxRetryBackoff = maxBackoff
	})
	return d, storeOn(t, rdb, &redisstore.Config{NoCoalescing: noCoalescing})
}
