package proctest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// envChild holds a child's childEnv, as JSON.
const envChild = "HOPPER_TEST_CHILD"

// childEnv tells a child what to do.
type childEnv struct {
	Role string
	Name string
	Spec json.RawMessage
}

// Role is what a child does. It runs until ctx ends (the child's stdin
// closed, or SIGTERM) and returns nil once it shut down; an error ends the
// child with exit status 1, which fails the test. A role stopped before
// it got going (a store's start-up check cut off) may return ctx's error
// instead: once a stop was asked, context.Canceled is a clean stop.
type Role func(ctx context.Context, c *Child) error

var roles = map[string]Role{}

// Register makes a role available to the children of this test binary. It
// is called from an init function (it is not safe for concurrent use); a
// name registered twice panics.
func Register(name string, r Role) {
	if _, dup := roles[name]; dup {
		panic("proctest: role " + name + " registered twice")
	}
	roles[name] = r
}

// Main plays the role of a child and exits, when this process was started
// as one; otherwise it returns at once. TestMain calls it first.
func Main() {
	v, ok := os.LookupEnv(envChild)
	if !ok {
		return
	}
	os.Exit(runChild(v))
}

func runChild(v string) int {
	var env childEnv
	if err := json.Unmarshal([]byte(v), &env); err != nil {
		fmt.Fprintf(os.Stderr, "proctest: bad %s: %v\n", envChild, err)
		return 2
	}
	role := roles[env.Role]
	if role == nil {
		fmt.Fprintf(os.Stderr, "proctest: child %s: no role %q registered\n", env.Name, env.Role)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	c := &Child{Name: env.Name, spec: env.Spec, out: os.Stdout, more: make(chan struct{}, 1)}
	go c.readCommands(os.Stdin, stop)
	if err := role(ctx, c); err != nil && (ctx.Err() == nil || !errors.Is(err, context.Canceled)) {
		fmt.Fprintf(os.Stderr, "proctest: child %s (%s): %v\n", env.Name, env.Role, err)
		return 1
	}
	return 0
}

// Child is a child process's side of the protocol, given to its role.
type Child struct {
	// Name is the child's name, unique in its Group.
	Name string
	spec json.RawMessage

	outMu sync.Mutex
	out   io.Writer

	cmdMu sync.Mutex
	cmds  []string      // read, not taken yet
	eof   bool          // stdin closed
	more  chan struct{} // a command came, or stdin closed
}

// Spec decodes the role's spec, as the parent gave it to Start, into v.
func (c *Child) Spec(v any) error {
	if err := json.Unmarshal(c.spec, v); err != nil {
		return fmt.Errorf("proctest: spec of child %s: %w", c.Name, err)
	}
	return nil
}

// Emit reports e to the parent, setting e.At to now when it is zero. It is
// safe for concurrent use; each event is one write, so that a line is in
// the pipe whole or not at all when the child is killed.
func (c *Child) Emit(e Event) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // an Event has only plain fields
	}
	b = append(b, '\n')
	c.outMu.Lock()
	defer c.outMu.Unlock()
	_, _ = c.out.Write(b)
}

// Ready reports that the child is ready (EvReady).
func (c *Child) Ready() { c.Emit(Event{Ev: EvReady}) }

// Error reports err about job (empty for none) as an EvError event, which
// fails the test, and returns err.
func (c *Child) Error(job string, err error) error {
	c.Emit(Event{Ev: EvError, Job: job, Err: err.Error()})
	return err
}

// Commands yields the parent's commands, one a line, until stdin closes or
// ctx ends. Commands not taken wait for the next call.
func (c *Child) Commands(ctx context.Context) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			c.cmdMu.Lock()
			if len(c.cmds) > 0 {
				cmd := c.cmds[0]
				c.cmds = c.cmds[1:]
				c.cmdMu.Unlock()
				if !yield(cmd) {
					return
				}
				continue
			}
			eof := c.eof
			c.cmdMu.Unlock()
			if eof {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-c.more:
			}
		}
	}
}

// readCommands queues the lines of r until it ends, then calls stop: the
// parent is done, or gone.
func (c *Child) readCommands(r io.Reader, stop func()) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		c.cmdMu.Lock()
		c.cmds = append(c.cmds, sc.Text())
		c.cmdMu.Unlock()
		c.signal()
	}
	c.cmdMu.Lock()
	c.eof = true
	c.cmdMu.Unlock()
	c.signal()
	stop()
}

func (c *Child) signal() {
	select {
	case c.more <- struct{}{}:
	default:
	}
}
