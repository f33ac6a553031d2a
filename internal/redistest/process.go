package redistest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/hopperq/hopper/internal/childproc"
	"github.com/redis/go-redis/v9"
)

const (
	// startTimeout bounds how long a server may take to answer PING.
	startTimeout = 15 * time.Second
	// stopTimeout bounds how long a server may take to exit after SIGTERM
	// before it is killed.
	stopTimeout = 10 * time.Second
	// startAttempts is how often a server is started on a new port when the
	// one picked was taken in the meantime.
	startAttempts = 3
)

func itoa(n int) string { return strconv.Itoa(n) }

// process is one running redis-server.
type process struct {
	bin  string
	args []string
	dir  string
	port int
	cmd  *exec.Cmd
	out  *childproc.Output // stdout and stderr, for error messages
	done chan struct{}     // closed when the process has exited
	// frozen is set while the process is stopped (Cluster.FreezeAddr):
	// it does not count as running, as it answers nothing.
	frozen bool
	tls    *tls.Config // client TLS settings for PING, when the server only speaks TLS
}

// startServer starts redis-server with the arguments args(port) in dir on a
// free port, retrying on a new port if it fails to come up, and waits until
// it answers PING.
func startServer(bin, dir string, args func(port int) []string) (*process, error) {
	var errs []error
	for range startAttempts {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p := &process{bin: bin, args: args(port), dir: dir, port: port}
		if err := p.start(); err != nil {
			errs = append(errs, err)
			continue
		}
		return p, nil
	}
	return nil, errors.Join(errs...)
}

// start runs the process and waits until it answers PING.
func (p *process) start() error {
	if p.out == nil {
		p.out = new(childproc.Output)
	} else {
		// A restart keeps the earlier lives' output (Cluster.NodeLog),
		// marked off.
		fmt.Fprintf(p.out, "--- redistest: restarted at %s ---\n", time.Now().UTC().Format(time.RFC3339Nano))
	}
	p.cmd = exec.Command(p.bin, p.args...)
	p.cmd.Dir = p.dir
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	childproc.DieWithParent(p.cmd)
	p.done = make(chan struct{})
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("redistest: start %s: %w", p.bin, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	if err := p.waitPing(); err != nil {
		_ = p.stop()
		return err
	}
	return nil
}

// running reports whether the process has started and not exited. Callers
// that may race with a restart hold the lock of the server or cluster that
// owns p.
func (p *process) running() bool {
	if p.cmd == nil || p.done == nil || p.frozen {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// addr returns the server's address.
func (p *process) addr() string { return "127.0.0.1:" + itoa(p.port) }

// waitPing polls the server with PING until it answers, it exits, or
// startTimeout passes.
func (p *process) waitPing() error {
	rdb := redis.NewClient(&redis.Options{
		Addr: p.addr(), MaxRetries: -1, PoolSize: 1, TLSConfig: p.tls,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
	})
	defer rdb.Close()
	deadline := time.Now().Add(startTimeout)
	pause := time.Millisecond
	for {
		err := rdb.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("redistest: %s %v exited before answering PING: %s", p.bin, p.args, p.output())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redistest: %s on port %d did not answer PING within %v: %v; output: %s", p.bin, p.port, startTimeout, err, p.output())
		}
		select {
		case <-p.done:
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// output returns what the process printed, cut to its last 2 KB.
func (p *process) output() string {
	return p.out.Tail(2048)
}

// stop sends SIGTERM, waits for the exit, and kills the process when it
// takes longer than stopTimeout. Stopping a stopped process does nothing.
func (p *process) stop() error {
	if p.cmd == nil || p.cmd.Process == nil {
		return nil
	}
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(stopTimeout):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("redistest: redis-server on port %d ignored SIGTERM for %v and was killed", p.port, stopTimeout)
}

// makeDir creates a temporary directory for a server that outlives any one
// test (a shared server); private servers use t.TempDir instead.
func makeDir(name string) (string, error) {
	dir, err := os.MkdirTemp("", "redistest-"+name+"-")
	if err != nil {
		return "", fmt.Errorf("redistest: %w", err)
	}
	return filepath.Clean(dir), nil
}
