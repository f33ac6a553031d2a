package faulttest

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// proxy is a TCP proxy in front of Redis that injects faults: latency on
// every chunk, a pause in which nothing is forwarded (so clients time out),
// and connection resets. It is safe for concurrent use.
type proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	delay   time.Duration
	resume  chan struct{} // non-nil while paused; closed on resume
	conns   map[net.Conn]struct{}
	closing bool
	wg      sync.WaitGroup
}

// startProxy listens on a free loopback port and forwards to target until
// the test ends.
func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is where clients connect.
func (p *proxy) Addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", p.target, time.Second)
		if err != nil {
			_ = c.Close()
			continue
		}
		if !p.track(c, up) {
			return
		}
		p.wg.Add(2)
		go p.pump(up, c)
		go p.pump(c, up)
	}
}

func (p *proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

// pump copies from src to dst, holding each chunk while paused and
// delaying it by the latency; it closes both when either side ends.
func (p *proxy) pump(dst, src net.Conn) {
	defer p.wg.Done()
	defer func() {
		_ = src.Close()
		_ = dst.Close()
		p.mu.Lock()
		delete(p.conns, src)
		delete(p.conns, dst)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			delay, resume := p.delay, p.resume
			p.mu.Unlock()
			if resume != nil {
				<-resume
			}
			if delay > 0 {
				time.Sleep(delay) // the injected latency itself
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
			return
		}
	}
}

// setLatency delays every chunk in both directions by d (0 for none).
func (p *proxy) setLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// pause stops forwarding until resume: connections stay open and clients
// wait for replies until their timeouts.
func (p *proxy) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume == nil {
		p.resume = make(chan struct{})
	}
}

func (p *proxy) unpause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume != nil {
		close(p.resume)
		p.resume = nil
	}
}

// reset closes every open connection with a TCP RST.
func (p *proxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
}

func (p *proxy) close() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	_ = p.ln.Close()
	p.unpause()
	p.reset()
	p.wg.Wait()
}
