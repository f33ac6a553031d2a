package upgradetest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/childproc"
)

// proc is one program the test started.
type proc struct {
	name  string
	cmd   *exec.Cmd
	out   childproc.Output // stdout and stderr, interleaved
	ready chan struct{}    // closed when it printed "ready"
	done  chan struct{}    // closed when it exited
	err   error            // its exit status, once done

	mu    sync.Mutex
	asked bool // the test asked it to stop
}

// procs are the programs of a run. Methods are called from the test's
// goroutine only.
type procs struct {
	t   *testing.T
	all []*proc
}

// start starts bin with args, named name, and waits until it is ready.
func (ps *procs) start(name, bin string, args ...string) *proc {
	t := ps.t
	t.Helper()
	p := &proc{name: name, ready: make(chan struct{}), done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	childproc.DieWithParent(p.cmd)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("upgradetest: start %s: %v", name, err)
	}
	ps.all = append(ps.all, p)
	go p.read(stdout)
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	select {
	case <-p.ready:
	case <-p.done:
		t.Fatalf("upgradetest: %s exited before it was ready (%v):\n%s", name, p.err, p.out.Tail(4000))
	case <-time.After(30 * time.Second):
		t.Fatalf("upgradetest: %s not ready within 30 s:\n%s", name, p.out.Tail(4000))
	}
	return p
}

// read copies the program's stdout, noting "ready", then waits for it.
func (p *proc) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	once := sync.Once{}
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(&p.out, line)
		if line == "ready" {
			once.Do(func() { close(p.ready) })
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	p.err = p.cmd.Wait()
	close(p.done)
}

// stop sends SIGTERM to p and waits up to 30 s for it to exit, which
// it must do with status 0.
func (ps *procs) stop(p *proc) time.Duration {
	t := ps.t
	t.Helper()
	p.mu.Lock()
	p.asked = true
	p.mu.Unlock()
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("upgradetest: signal %s: %v", p.name, err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("upgradetest: %s still running 30 s after SIGTERM:\n%s", p.name, p.out.Tail(4000))
	}
	if p.err != nil {
		t.Fatalf("upgradetest: %s exited with %v after SIGTERM:\n%s", p.name, p.err, p.out.Tail(4000))
	}
	return time.Since(start)
}

// checkAlive fails the test when a program exited without being asked.
func (ps *procs) checkAlive() {
	ps.t.Helper()
	for _, p := range ps.all {
		select {
		case <-p.done:
			p.mu.Lock()
			asked := p.asked
			p.mu.Unlock()
			if !asked {
				ps.t.Fatalf("upgradetest: %s exited unasked (%v):\n%s", p.name, p.err, p.out.Tail(4000))
			}
		default:
		}
	}
}

// waitFor polls cond every 100 ms until it holds, for at most timeout,
// failing the test with cond's last description (and when a program
// exits unasked). It returns how long it waited.
func (ps *procs) waitFor(timeout time.Duration, what string, cond func() (bool, string)) time.Duration {
	t := ps.t
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		ps.checkAlive()
		ok, state := cond()
		if ok {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("upgradetest: %s: not within %v; last seen: %s\n%s", what, timeout, state, ps.tails())
		}
		time.Sleep(100 * time.Millisecond) // polling a condition with a deadline
	}
}

// tails returns the end of every program's output.
func (ps *procs) tails() string {
	var b strings.Builder
	for _, p := range ps.all {
		fmt.Fprintf(&b, "--- %s:\n%s\n", p.name, p.out.Tail(1500))
	}
	return b.String()
}
