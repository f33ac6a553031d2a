package proctest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/childproc"
	"github.com/hopperq/hopper/internal/testutil"
)

const (
	// ReadyTimeout bounds how long WaitReady waits for a child to be ready.
	ReadyTimeout = 60 * time.Second
	// StopTimeout bounds how long a child may take to exit once asked to
	// stop, before it is killed (and the test fails). A race-enabled
	// binary lingers about a second at exit.
	StopTimeout = 20 * time.Second
)

// Group is the children of one test and every Event they reported. Its
// methods are safe for concurrent use; those that fail the test (Start,
// StartN, Eventually, and Proc's WaitReady, Send, Freeze, Thaw) are called
// from the test's goroutine.
type Group struct {
	t testing.TB
	// Dir, when set before a child starts, is where the child's report
	// lines (<name>.jsonl) and, when the test ends, its stderr
	// (<name>.stderr) are copied, for diagnosis.
	Dir string

	mu     sync.Mutex
	events []Event
	procs  []*Proc
	named  map[string]bool
	seq    int
}

// NewGroup returns an empty group for t. When t ends, every child still
// running is stopped (Stop), and the test fails for a child that wrote a
// data race or a panic to stderr; the stderr of every child is logged if
// the test failed.
func NewGroup(t testing.TB) *Group {
	g := &Group{t: t, named: map[string]bool{}}
	t.Cleanup(g.cleanup)
	return g
}

// Proc is a running child, or one that ended.
type Proc struct {
	g      *Group
	name   string
	role   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr childproc.Output
	keep   *os.File      // the copy of its lines in Group.Dir, or nil
	ready  chan struct{} // closed on its first EvReady
	once   sync.Once     // closes ready
	done   chan struct{} // closed once it exited and all its lines were read

	mu     sync.Mutex
	asked  ending // how the test asked it to end
	frozen bool
	status error // what Wait returned
}

// ending is how a test asked a child to end.
type ending int

const (
	notAsked ending = iota
	stopAsked
	killAsked
)

// Start starts a child named name (unique in the group; empty for
// "<role><n>") playing role with spec, which the child decodes with
// Child.Spec. It does not wait for the child to be ready (WaitReady).
func (g *Group) Start(name, role string, spec any) *Proc {
	g.t.Helper()
	g.mu.Lock()
	if name == "" {
		g.seq++
		name = role + strconv.Itoa(g.seq)
	}
	dup := g.named[name]
	g.named[name] = true
	g.mu.Unlock()
	if dup {
		g.t.Fatalf("proctest: a child named %s was started already", name)
	}
	cmd, err := command(name, role, spec)
	if err != nil {
		g.t.Fatal(err)
	}
	p := &Proc{g: g, name: name, role: role, cmd: cmd, ready: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = &p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		g.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		g.t.Fatal(err)
	}
	if g.Dir != "" {
		if err := os.MkdirAll(g.Dir, 0o755); err != nil {
			g.t.Fatal(err)
		}
		if p.keep, err = os.Create(filepath.Join(g.Dir, name+".jsonl")); err != nil {
			g.t.Fatal(err)
		}
	}
	if err := cmd.Start(); err != nil {
		g.t.Fatalf("proctest: start child %s: %v", name, err)
	}
	g.mu.Lock()
	g.procs = append(g.procs, p)
	g.mu.Unlock()
	go p.read(stdout)
	return p
}

// command returns the command that runs this test binary as a child.
func command(name, role string, spec any) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("proctest: spec of child %s: %w", name, err)
	}
	env, err := json.Marshal(childEnv{Role: role, Name: name, Spec: js})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envChild+"="+string(env)) // the last of duplicate keys wins
	childproc.DieWithParent(cmd)
	return cmd, nil
}

// StartN starts n children of role with spec, named by the group, and
// waits until all of them are ready.
func (g *Group) StartN(n int, role string, spec any) []*Proc {
	g.t.Helper()
	ps := make([]*Proc, n)
	for i := range ps {
		ps[i] = g.Start("", role, spec)
	}
	for _, p := range ps {
		p.WaitReady()
	}
	return ps
}

// read takes the child's lines until its stdout closes, then waits for it
// to exit.
func (p *Proc) read(stdout io.Reader) {
	defer close(p.done)
	br := bufio.NewReaderSize(stdout, 64<<10)
	var torn []byte
	for {
		line, err := br.ReadBytes('\n')
		if n := len(line); n > 0 && line[n-1] == '\n' {
			p.add(line[:n-1])
		} else if n > 0 {
			torn = line
		}
		if err != nil {
			break
		}
	}
	status := p.cmd.Wait()
	if p.keep != nil {
		_ = p.keep.Close()
	}
	p.mu.Lock()
	p.status = status
	asked := p.asked
	p.mu.Unlock()
	t := p.g.t
	if torn != nil && asked != killAsked {
		t.Errorf("proctest: child %s (pid %d) ended with an unfinished line %q", p.name, p.PID(), torn)
	}
	if asked == notAsked {
		t.Errorf("proctest: child %s (%s, pid %d) exited unasked: %v", p.name, p.role, p.PID(), errOrOK(status))
	}
}

func errOrOK(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// add records one line of the child.
func (p *Proc) add(line []byte) {
	t := p.g.t
	if p.keep != nil {
		_, _ = p.keep.Write(append(line, '\n'))
	}
	var e Event
	if err := json.Unmarshal(line, &e); err != nil {
		t.Errorf("proctest: child %s (pid %d) wrote %q: %v", p.name, p.PID(), line, err)
		return
	}
	e.Child, e.PID = p.name, p.PID()
	switch e.Ev {
	case EvError:
		t.Errorf("proctest: child %s (%s, pid %d): job %q: %s", p.name, p.role, e.PID, e.Job, e.Err)
	case EvReady:
		p.once.Do(func() { close(p.ready) })
	}
	g := p.g
	g.mu.Lock()
	g.events = append(g.events, e)
	g.mu.Unlock()
}

// Events returns every event reported so far, in the order the parent read
// them. The slice must not be modified.
func (g *Group) Events() []Event {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.events[:len(g.events):len(g.events)]
}

// Filter returns the events keep accepts, in the order of Events.
func (g *Group) Filter(keep func(Event) bool) []Event {
	var out []Event
	for _, e := range g.Events() {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// Count returns how many events keep accepts.
func (g *Group) Count(keep func(Event) bool) int { return len(g.Filter(keep)) }

// Eventually polls cond as testutil.Eventually does, and fails the test at
// once when a child of the group exited unasked meanwhile.
func (g *Group) Eventually(timeout time.Duration, cond func() error) {
	g.t.Helper()
	testutil.Eventually(g.t, timeout, func() error {
		if p := g.exitedUnasked(); p != nil {
			g.t.Fatalf("proctest: child %s (%s, pid %d) exited unasked while the test waited: %v", p.name, p.role, p.PID(), errOrOK(p.exitStatus()))
		}
		return cond()
	})
}

// EventuallyTrue is Eventually for a condition with no error of its own:
// what names what the test waits for.
func (g *Group) EventuallyTrue(timeout time.Duration, what string, cond func() bool) {
	g.t.Helper()
	g.Eventually(timeout, func() error {
		if cond() {
			return nil
		}
		return errors.New("timed out waiting for " + what)
	})
}

func (g *Group) exitedUnasked() *Proc {
	g.mu.Lock()
	procs := g.procs
	g.mu.Unlock()
	for _, p := range procs {
		if !p.ended() {
			continue
		}
		p.mu.Lock()
		asked := p.asked
		p.mu.Unlock()
		if asked == notAsked {
			return p
		}
	}
	return nil
}

// Stop asks every child still running to shut down gracefully, all at
// once (Proc.Stop).
func (g *Group) Stop() {
	g.mu.Lock()
	procs := g.procs
	g.mu.Unlock()
	stop(g.t, procs)
}

// stop closes the stdin of every one of ps, then waits for each to exit,
// up to StopTimeout in all, and kills those still running.
func stop(t testing.TB, ps []*Proc) {
	var waiting []*Proc
	for _, p := range ps {
		p.mu.Lock()
		ask := p.asked == notAsked
		if ask {
			p.asked = stopAsked
			if p.frozen {
				_ = p.cmd.Process.Signal(syscall.SIGCONT)
				p.frozen = false
			}
		}
		p.mu.Unlock()
		if ask {
			_ = p.stdin.Close()
			waiting = append(waiting, p)
		}
	}
	timeout := time.NewTimer(StopTimeout)
	defer timeout.Stop()
	expired := false
	for _, p := range waiting {
		if !expired {
			select {
			case <-p.done:
			case <-timeout.C:
				expired = true
			}
		}
		select {
		case <-p.done:
		default:
			p.mu.Lock()
			p.asked = killAsked
			p.mu.Unlock()
			_ = p.cmd.Process.Kill()
			<-p.done
			t.Errorf("proctest: child %s (%s, pid %d) did not stop within %v of its stdin closing; killed", p.name, p.role, p.PID(), StopTimeout)
			continue
		}
		if err := p.exitStatus(); err != nil {
			t.Errorf("proctest: child %s (%s, pid %d): %v", p.name, p.role, p.PID(), err)
		}
	}
}

// cleanup stops the children still running and checks what they wrote to
// stderr.
func (g *Group) cleanup() {
	g.Stop()
	g.mu.Lock()
	procs := g.procs
	g.mu.Unlock()
	for _, p := range procs {
		out := p.Stderr()
		if g.Dir != "" {
			_ = os.WriteFile(filepath.Join(g.Dir, p.name+".stderr"), []byte(out), 0o644)
		}
		for _, bad := range []string{"WARNING: DATA RACE", "panic: ", "fatal error: "} {
			if hasLine(out, bad) {
				g.t.Errorf("proctest: child %s (%s, pid %d) wrote %q to stderr:\n%s", p.name, p.role, p.PID(), bad, tail(out, 16000))
				break
			}
		}
	}
	if g.t.Failed() {
		for _, p := range procs {
			if out := p.Stderr(); out != "" {
				g.t.Logf("proctest: child %s (%s, pid %d) stderr:\n%s", p.name, p.role, p.PID(), tail(out, 4000))
			}
		}
	}
}

// hasLine reports whether a line of s starts with prefix.
func hasLine(s, prefix string) bool {
	return strings.HasPrefix(s, prefix) || strings.Contains(s, "\n"+prefix)
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// Name returns the child's name.
func (p *Proc) Name() string { return p.name }

// PID returns the child's process ID.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Done is closed once the child exited and the parent read all it
// reported.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Stderr returns what the child wrote to stderr so far.
func (p *Proc) Stderr() string { return p.stderr.String() }

func (p *Proc) exitStatus() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// WaitReady waits until the child reported EvReady, up to ReadyTimeout; it
// fails the test if the child exits first.
func (p *Proc) WaitReady() {
	t := p.g.t
	t.Helper()
	timeout := time.NewTimer(ReadyTimeout)
	defer timeout.Stop()
	select {
	case <-p.ready:
		return
	case <-p.done:
	case <-timeout.C:
		t.Fatalf("proctest: child %s (%s, pid %d) not ready after %v", p.name, p.role, p.PID(), ReadyTimeout)
	}
	select {
	case <-p.ready: // ready, then exited: let the test see what follows
	default:
		t.Fatalf("proctest: child %s (%s, pid %d) exited before it was ready: %v\n%s", p.name, p.role, p.PID(), errOrOK(p.exitStatus()), tail(p.Stderr(), 4000))
	}
}

// Send writes one command line to the child.
func (p *Proc) Send(cmd string) {
	t := p.g.t
	t.Helper()
	if _, err := io.WriteString(p.stdin, cmd+"\n"); err != nil {
		t.Fatalf("proctest: command to child %s: %v", p.name, err)
	}
}

// Stop asks the child to shut down gracefully (its stdin closes; a frozen
// child is thawed first) and waits up to StopTimeout for it to exit, then
// kills it. A child that exits with an error, or had to be killed, fails
// the test. A child that ended already is left as it is.
func (p *Proc) Stop() { stop(p.g.t, []*Proc{p}) }

// Kill ends the child with SIGKILL (a crash; a frozen child dies too) and
// returns once it is dead and all it reported was read.
func (p *Proc) Kill() {
	p.mu.Lock()
	if p.asked == notAsked {
		p.asked = killAsked
	}
	p.mu.Unlock()
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Freeze stops the child with SIGSTOP.
func (p *Proc) Freeze() {
	p.g.t.Helper()
	p.signal(syscall.SIGSTOP, true)
}

// Thaw resumes a frozen child with SIGCONT.
func (p *Proc) Thaw() {
	p.g.t.Helper()
	p.signal(syscall.SIGCONT, false)
}

func (p *Proc) signal(sig syscall.Signal, frozen bool) {
	p.g.t.Helper()
	p.mu.Lock()
	err := p.cmd.Process.Signal(sig)
	if err == nil {
		p.frozen = frozen
	}
	p.mu.Unlock()
	if err != nil {
		p.g.t.Fatalf("proctest: signal %v to child %s: %v", sig, p.name, err)
	}
}

// Stacks ends the child with SIGQUIT, which has the Go runtime write every
// goroutine's stack to stderr, and returns the stacks that mention
// filter (all when it is ""), for a test to log where a child was stuck.
// The child's end counts as asked.
func (p *Proc) Stacks(filter string) string {
	p.mu.Lock()
	if p.asked == notAsked {
		p.asked = killAsked
	}
	p.mu.Unlock()
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a frozen child writes nothing
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.done:
	case <-time.After(StopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	out := p.Stderr()
	if i := strings.Index(out, "\ngoroutine "); i >= 0 {
		out = out[i+1:]
	}
	var keep []string
	for _, g := range strings.Split(out, "\n\n") {
		if strings.HasPrefix(g, "goroutine ") && strings.Contains(g, filter) {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}

// Running returns the children that have not ended.
func (g *Group) Running() []*Proc {
	g.mu.Lock()
	procs := g.procs
	g.mu.Unlock()
	var out []*Proc
	for _, p := range procs {
		if !p.ended() {
			out = append(out, p)
		}
	}
	return out
}

// ended reports whether the child has ended and all it reported was read.
func (p *Proc) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
