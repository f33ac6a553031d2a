package redistest

import (
	"fmt"
	"syscall"
	"testing"
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

// KillNode ends the process of the cluster's i-th master (in the order of
// Addrs) with SIGKILL and waits until it has exited. The other masters keep
// running; the cluster marks the node as failing after its node timeout
// (5 s). Only a private cluster (StartCluster(t, Private())) can lose a
// node: KillNode fails the test for a shared or external one.
func (c *Cluster) KillNode(t testing.TB, i int) {
	t.Helper()
	if c.shared || len(c.procs) == 0 {
		t.Fatalf("redistest: KillNode on the shared or external cluster %v; use StartCluster(t, Private())", c.Addrs)
	}
	if i < 0 || i >= len(c.procs) {
		t.Fatalf("redistest: KillNode(%d) of a cluster of %d nodes", i, len(c.procs))
	}
	if err := c.procs[i].kill(); err != nil {
		t.Fatal(err)
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
