package redisstore_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Faults for the tests of lost claim replies (takeback_test.go): a hook
// that loses, refuses or holds a script's calls, and a proxy that holds a
// reply back past the client's read timeout.

// loseReplies is a go-redis hook that runs the next armed calls of the
// script whose function name ends with suffix ("_claim" when empty) and
// then loses their replies, as a link does that fails after the request
// went out (the caller sees a read timeout). With unsent set, the armed
// calls fail before they are sent, as when no connection can be made.
// With hold set, an armed call fails as if its reply were lost, but is
// kept, to reach the server when deliver is called: a request held up on
// a link that heals.
type loseReplies struct {
	suffix string
	armed  atomic.Int32
	unsent bool
	hold   bool
	lost   atomic.Int32 // replies lost (calls failed, with unsent)
	held   func() error
}

var (
	errReplyLost = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	errNoConn    = &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
)

// deliver sends the held call to the server, late.
func (h *loseReplies) deliver(t *testing.T) {
	t.Helper()
	if h.held == nil {
		t.Fatal("no call held")
	}
	if err := h.held(); err != nil {
		t.Fatalf("the held call, delivered: %v", err)
	}
}

func (h *loseReplies) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *loseReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.hold && h.lose(cmd) {
			c := redis.NewCmd(context.Background(), cmd.Args()...)
			h.held = func() error { return next(context.Background(), c) }
			cmd.SetErr(errReplyLost)
			return errReplyLost
		}
		if h.unsent && h.lose(cmd) {
			cmd.SetErr(errNoConn)
			return errNoConn
		}
		err := next(ctx, cmd)
		if err == nil && !h.unsent && h.lose(cmd) {
			cmd.SetErr(errReplyLost)
			return errReplyLost
		}
		return err
	}
}

func (h *loseReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.unsent {
			for _, cmd := range cmds {
				if h.lose(cmd) {
					cmd.SetErr(errNoConn)
					return errNoConn
				}
			}
		}
		err := next(ctx, cmds)
		if err == nil && !h.unsent && slices.ContainsFunc(cmds, h.lose) {
			for _, cmd := range cmds {
				cmd.SetErr(errReplyLost)
			}
			return errReplyLost
		}
		return err
	}
}

// lose says whether cmd is a call whose reply is to be lost, disarming
// one loss.
func (h *loseReplies) lose(cmd redis.Cmder) bool {
	suffix := h.suffix
	if suffix == "" {
		suffix = "_claim"
	}
	if _, _, ok := fcallOf(cmd, suffix); !ok || !h.unsent && !h.hold && cmd.Err() != nil {
		return false
	}
	if h.armed.Add(-1) < 0 {
		h.armed.Add(1)
		return false
	}
	h.lost.Add(1)
	return true
}

// lateReplies is a TCP proxy in front of a server that holds back the
// server's next reply by hold once armed: the command has run, and its
// reply reaches the client after the client's read timeout, on a
// connection the client has given up.
type lateReplies struct {
	ln    net.Listener
	armed atomic.Bool
	hold  time.Duration
}

func startLateReplies(t *testing.T, target string, hold time.Duration) *lateReplies {
	t.Helper()
	p := &lateReplies{hold: hold}
	p.ln = proxyTo(t, target, func(c, up net.Conn) {
		go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
		go func() {
			buf := make([]byte, 64<<10)
			for {
				n, err := up.Read(buf)
				if n > 0 && p.armed.CompareAndSwap(true, false) {
					time.Sleep(p.hold) // the test's fault: a reply held back
				}
				if n > 0 {
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					_ = c.Close()
					return
				}
			}
		}()
	})
	return p
}

// proxyTo listens on a free port of 127.0.0.1 and, for each connection
// it accepts, dials target and hands both to serve, until t ends; then
// it closes the listener and every connection.
func proxyTo(t *testing.T, target string, serve func(client, server net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			serve(c, up)
		}
	}()
	return ln
}
