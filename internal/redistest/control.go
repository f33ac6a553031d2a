package redistest

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Kill ends a private server with SIGKILL, as a crash or the OOM killer
// would: no shutdown save, no goodbye to clients. It waits until the process
// has exited; Restart starts it again on the same port and directory, so
// with "--appendonly", "yes" it reloads what its AOF holds. Only a private
// server can be killed: Kill fails the test for a shared or external one.
// Killing a stopped server does nothing.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	s.requirePrivate(t, "Kill")
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.proc.kill(); err != nil {
		t.Fatal(err)
	}
}

// Freeze stops a private server's process with SIGSTOP, as a stalled host
// would: it keeps its connections (a replica stays a master's replica) but
// answers nothing and acknowledges nothing until thaw continues it
// (SIGCONT), which the test's end does too; thaw may be called more than
// once. Only a private, running server can be frozen: Freeze fails the
// test otherwise.
func (s *Server) Freeze(t testing.TB) (thaw func()) {
	t.Helper()
	s.requirePrivate(t, "Freeze")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.proc.running() {
		t.Fatalf("redistest: Freeze of %s: the server is not running", s.proc.addr())
	}
	proc := s.proc.cmd.Process
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	thaw = func() { once.Do(func() { _ = proc.Signal(syscall.SIGCONT) }) }
	t.Cleanup(thaw)
	return thaw
}

// KillNode ends the node created as the cluster's i-th master (Addrs[i])
// with SIGKILL and waits until it has exited; see KillAddr. After a
// failover that node may be a replica now: KillNode still kills Addrs[i].
// Only a private cluster (StartCluster(t, Private())) can lose a node:
// KillNode fails the test for a shared or external one.
func (c *Cluster) KillNode(t testing.TB, i int) {
	t.Helper()
	c.requirePrivate(t, "KillNode")
	if i < 0 || i >= len(c.Addrs) {
		t.Fatalf("redistest: KillNode(%d) of a cluster of %d masters", i, len(c.Addrs))
	}
	c.kill(t, "KillNode", c.Addrs[i])
}

// KillAddr ends the cluster node at addr (any of AllAddrs, master or
// replica) with SIGKILL, as a crash would, and waits until it has exited.
// The other nodes keep running; they flag it as failing after the node
// timeout (5 s, or NodeTimeout), and when it was a master with a replica
// (Replicas), the replica takes over its slots: WaitFailover waits for
// that. RestartAddr starts it again. Killing a node that is down does
// nothing. Only a private cluster can lose a node: KillAddr fails the test
// for a shared or external one.
func (c *Cluster) KillAddr(t testing.TB, addr string) {
	t.Helper()
	c.requirePrivate(t, "KillAddr")
	c.kill(t, "KillAddr", addr)
}

// RestartAddr starts the node at addr, ended by KillAddr or KillNode,
// again on the same ports and directory, and waits until it answers PING.
// It keeps its node ID and knows the cluster from its nodes.conf; a master
// whose slots a replica took over in the meantime learns so from the other
// nodes and turns itself into a replica of the new master. Call
// WaitHealthy to wait until it has (and has synced). RestartAddr fails the
// test for a node that is running, or when its port was taken meanwhile.
func (c *Cluster) RestartAddr(t testing.TB, addr string) {
	t.Helper()
	c.requirePrivate(t, "RestartAddr")
	p := c.proc(t, "RestartAddr", addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.running() {
		t.Fatalf("redistest: RestartAddr(%s): the node is still running; call KillAddr first", addr)
	}
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	delete(c.killed, addr)
}

// killRecord is what a node was when KillAddr or KillNode ended it.
type killRecord struct {
	node Node  // its own view of itself just before
	err  error // why node is unknown, if it is
}

// kill records what the node at addr serves, kills it and waits for the
// exit; what names the caller for messages.
func (c *Cluster) kill(t testing.TB, what, addr string) {
	t.Helper()
	p := c.proc(t, what, addr)
	rec := c.recordNode(p, addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !p.running() {
		return // killed or stopped already; keep the first record
	}
	if err := p.kill(); err != nil {
		t.Fatal(err)
	}
	if c.killed == nil {
		c.killed = map[string]killRecord{}
	}
	c.killed[addr] = rec
}

// FreezeAddr stops the cluster node at addr with SIGSTOP, as a stalled
// host or a link cut without a reset would: it keeps its connections but
// answers nothing. The other nodes flag it as failing after the node
// timeout, and a master's replica takes over: WaitFailover waits for
// that, as after KillAddr. thaw continues it (SIGCONT), which the test's
// end does too; a thawed master learns it was replaced and turns replica.
// Only a private cluster's running node can be frozen.
func (c *Cluster) FreezeAddr(t testing.TB, addr string) (thaw func()) {
	t.Helper()
	c.requirePrivate(t, "FreezeAddr")
	p := c.proc(t, "FreezeAddr", addr)
	rec := c.recordNode(p, addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !p.running() {
		t.Fatalf("redistest: FreezeAddr(%s): the node is not running", addr)
	}
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	p.frozen = true
	if c.killed == nil {
		c.killed = map[string]killRecord{}
	}
	c.killed[addr] = rec
	var once sync.Once
	thaw = func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			p.frozen = false
			delete(c.killed, addr)
		})
	}
	t.Cleanup(thaw)
	return thaw
}

// recordNode reads what the node at addr serves, for WaitFailover.
func (c *Cluster) recordNode(p *process, addr string) killRecord {
	var rec killRecord
	if c.isRunning(p) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		rdb := nodeClient(addr)
		v, err := readView(ctx, rdb, addr)
		_ = rdb.Close()
		cancel()
		if err != nil {
			rec.err = fmt.Errorf("CLUSTER NODES before the kill: %w", err)
		} else {
			rec.node = v.self.Node
		}
	}
	return rec
}

// NodeLog returns what the node at addr printed (its log) over all its
// lives, each restart marked with a line of its own; for a node of an
// external cluster, "".
func (c *Cluster) NodeLog(addr string) string {
	for _, p := range c.procs {
		if p.addr() == addr && p.out != nil {
			return p.out.String()
		}
	}
	return ""
}

// proc returns the process of the node at addr, or fails t.
func (c *Cluster) proc(t testing.TB, what, addr string) *process {
	t.Helper()
	for _, p := range c.procs {
		if p.addr() == addr {
			return p
		}
	}
	t.Fatalf("redistest: %s(%s): not a node of the cluster %v", what, addr, c.AllAddrs())
	return nil
}

// isRunning reports whether p runs, under the cluster's lock.
func (c *Cluster) isRunning(p *process) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.running()
}

// requirePrivate fails t unless the cluster's nodes are this test's own.
func (c *Cluster) requirePrivate(t testing.TB, what string) {
	t.Helper()
	if c.shared || len(c.procs) == 0 {
		t.Fatalf("redistest: %s on the shared or external cluster %v; use StartCluster(t, Private())", what, c.Addrs)
	}
}

// kill sends SIGKILL and waits for the exit. Killing a process that has
// exited does nothing.
func (p *process) kill() error {
	if p.cmd == nil || p.cmd.Process == nil {
		return nil
	}
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		select {
		case <-p.done:
			return nil
		default:
		}
		return fmt.Errorf("redistest: kill redis-server on port %d: %w", p.port, err)
	}
	<-p.done
	return nil
}
