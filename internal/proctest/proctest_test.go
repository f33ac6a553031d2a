package proctest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func init() {
	Register("echo", echo)
	Register("parent", parent)
	Register("starting", starting)
}

// starting is a role that never gets going: it waits for its stop, then
// returns what a start-up call cut off by it returns.
func starting(ctx context.Context, c *Child) error {
	c.Emit(Event{Ev: "starting"})
	<-ctx.Done()
	return fmt.Errorf("server check: %w", ctx.Err())
}

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// echo reports each command as an "echo" event with the command as Job;
// "fail <msg>" reports an error, "exit <n>" exits with status n. It says
// "bye" when it stops.
func echo(ctx context.Context, c *Child) error {
	c.Ready()
	for cmd := range c.Commands(ctx) {
		if msg, ok := strings.CutPrefix(cmd, "fail "); ok {
			_ = c.Error("", errors.New(msg))
			continue
		}
		if n, ok := strings.CutPrefix(cmd, "exit "); ok {
			code, _ := strconv.Atoi(n)
			os.Exit(code)
		}
		c.Emit(Event{Ev: "echo", Job: cmd})
	}
	c.Emit(Event{Ev: "bye"})
	return nil
}

// parent starts an echo child of its own, reports its PID as the Job of a
// "grandchild" event, and waits until it is stopped.
func parent(ctx context.Context, c *Child) error {
	cmd, err := command(c.Name+"-gc", "echo", nil)
	if err != nil {
		return err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if !bufio.NewScanner(stdout).Scan() { // its "ready"
		return errors.New("the grandchild wrote nothing")
	}
	c.Emit(Event{Ev: "grandchild", Job: strconv.Itoa(cmd.Process.Pid)})
	<-ctx.Done()
	_ = stdin.Close()
	return cmd.Wait()
}

func TestCommandsAndEvents(t *testing.T) {
	g := NewGroup(t)
	p := g.Start("", "echo", nil)
	p.WaitReady()
	for _, cmd := range []string{"a", "b", "c"} {
		p.Send(cmd)
	}
	g.EventuallyTrue(10*time.Second, "three echoes", func() bool { return g.Count(Is("echo")) == 3 })
	var got []string
	for _, e := range g.Filter(Is("echo")) {
		got = append(got, e.Job)
		if e.Child != p.Name() || e.PID != p.PID() || e.At.IsZero() {
			t.Errorf("event %+v: want child %s, pid %d and a time", e, p.Name(), p.PID())
		}
	}
	if !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("echoes %v, want a b c in order", got)
	}
	p.Stop()
	if n := g.Count(Is("bye")); n != 1 {
		t.Errorf("%d bye events after Stop, want 1: the child did not shut down gracefully", n)
	}
}

func TestKill(t *testing.T) {
	g := NewGroup(t)
	p := g.Start("k", "echo", nil)
	p.WaitReady()
	p.Kill()
	select {
	case <-p.Done():
	default:
		t.Fatal("Kill returned before the child was gone")
	}
	if n := g.Count(Is("bye")); n != 0 {
		t.Errorf("a killed child said bye")
	}
	p.Stop() // nothing: it ended
}

// Stacks returns the stacks of the child's goroutines that mention the
// filter (the echo role's loop here), and its end fails nothing.
func TestStacks(t *testing.T) {
	g := NewGroup(t)
	p := g.Start("s", "echo", nil)
	p.WaitReady()
	got := p.Stacks("proctest.echo")
	if !strings.HasPrefix(got, "goroutine ") || !strings.Contains(got, "proctest.echo(") {
		t.Fatalf("Stacks(proctest.echo) = %q, want the echo loop's goroutine", got)
	}
	if strings.Contains(got, "testing.tRunner") {
		t.Errorf("Stacks kept goroutines that do not mention the filter:\n%s", got)
	}
}

// stateOf returns the state letter of process pid from /proc (R, S, T, Z,
// ...), or "" when it is gone.
func stateOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return rest[:1]
}

func TestFreezeThaw(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads process states from /proc")
	}
	g := NewGroup(t)
	p := g.Start("f", "echo", nil)
	p.WaitReady()
	p.Freeze()
	g.EventuallyTrue(10*time.Second, "the child stopped", func() bool { return stateOf(t, p.PID()) == "T" })
	p.Send("x")
	p.Thaw()
	g.EventuallyTrue(10*time.Second, "the echo after the thaw", func() bool { return g.Count(Is("echo")) == 1 })
	p.Freeze()
	g.EventuallyTrue(10*time.Second, "the child stopped again", func() bool { return stateOf(t, p.PID()) == "T" })
	p.Stop() // thaws it first
	if n := g.Count(Is("bye")); n != 1 {
		t.Errorf("%d bye events after stopping a frozen child, want 1", n)
	}
}

// TestStopWhileStarting: a child stopped before it is ready, whose role
// returns the cancelled context's error, stopped cleanly.
func TestStopWhileStarting(t *testing.T) {
	rec := &recorder{T: t}
	g := NewGroup(rec)
	p := g.Start("s", "starting", nil)
	g.EventuallyTrue(ReadyTimeout, "the child starting", func() bool { return g.Count(Is("starting")) == 1 })
	p.Stop()
	if got := rec.failures(); got != "" {
		t.Errorf("stopping a starting child reported:\n%s", got)
	}
}

// recorder is a testing.TB that keeps the failures reported to it.
type recorder struct {
	*testing.T
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) failures() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

func TestFailures(t *testing.T) {
	rec := &recorder{T: t}
	g := NewGroup(rec)
	p := g.Start("e", "echo", nil)
	p.WaitReady()
	p.Send("fail boom")
	p.Send("exit 3")
	<-p.Done()
	got := rec.failures()
	for _, want := range []string{"boom", "exited unasked: exit status 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("failures reported:\n%s\nwant one with %q", got, want)
		}
	}
}

// TestChildrenDieWithParent: a child's own child, running or frozen, dies
// with it when it is killed.
func TestChildrenDieWithParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	for _, frozen := range []bool{false, true} {
		t.Run(fmt.Sprintf("frozen=%v", frozen), func(t *testing.T) {
			g := NewGroup(t)
			p := g.Start("parent", "parent", nil)
			var pid int
			g.EventuallyTrue(ReadyTimeout, "the grandchild", func() bool {
				evs := g.Filter(Is("grandchild"))
				if len(evs) == 0 {
					return false
				}
				pid, _ = strconv.Atoi(evs[0].Job)
				return true
			})
			if frozen {
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
				g.EventuallyTrue(10*time.Second, "the grandchild stopped", func() bool { return stateOf(t, pid) == "T" })
			}
			p.Kill()
			g.EventuallyTrue(10*time.Second, "the grandchild gone", func() bool {
				st := stateOf(t, pid)
				return st == "" || st == "Z"
			})
		})
	}
}
