package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Durable is passed to Start for a cluster that syncs to disk as a
// production server does; without it the cluster runs with fsync,
// synchronous_commit and full_page_writes off, as tests want.
const Durable = true

// safety is what a cluster survives without losing a commit it
// acknowledged.
type safety int

const (
	// fast survives nothing: fsync, synchronous_commit and
	// full_page_writes off.
	fast safety = iota
	// processCrash survives the server's processes being killed (the
	// kernel keeps what they wrote): synchronous_commit on, so that an
	// acknowledged commit's WAL is written before the reply, but fsync
	// and full_page_writes off, which only a machine crash needs.
	processCrash
	// safeDurable survives a machine crash: the server's defaults.
	safeDurable
)

// settings returns the server options for s.
func (s safety) settings() []string {
	switch s {
	case fast:
		return []string{"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"}
	case processCrash:
		return []string{"-c", "fsync=off", "-c", "full_page_writes=off"}
	}
	return nil
}

// startTimeout bounds how long the server may take to accept connections.
const startTimeout = 60 * time.Second

// Cluster is one running throwaway PostgreSQL cluster.
type Cluster struct {
	// URL connects to its "postgres" database as its superuser.
	URL string
	// Dir holds the data directory and the server's log.
	Dir string

	cmd  *exec.Cmd
	done chan struct{}
	out  *syncBuffer

	// What Restart needs to start the server again.
	bin  string
	cred *syscall.Credential
	args []string
	port int
}

// Start runs initdb in a new temporary directory and starts postgres on a
// free loopback port, waiting until it accepts connections. The server is
// killed if this process dies; Stop stops it and removes the directory.
func Start(durable bool) (*Cluster, error) {
	if durable {
		return start(safeDurable)
	}
	return start(fast)
}

func start(s safety) (*Cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "hopper-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin, cred: cred}
	if err := c.start(s); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(s safety) error {
	bin, cred := c.bin, c.cred
	data := filepath.Join(c.Dir, "data")
	if cred != nil {
		if err := os.Chown(c.Dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	c.args = append([]string{"-D", data, "-k", c.Dir, "-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=300", "-c", "shared_buffers=128MB"}, s.settings()...)
	var errs []error
	for range 3 { // a free port may be taken before postgres binds it
		port, err := freePort()
		if err != nil {
			return err
		}
		c.port = port
		c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
		if err := c.launch(); err != nil {
			errs = append(errs, err)
			continue
		}
		return nil
	}
	return errors.Join(errs...)
}

// launch runs postgres on c's data directory and port and waits until it
// accepts connections; if it does not, it is killed.
func (c *Cluster) launch() error {
	c.out = new(syncBuffer)
	c.cmd = exec.Command(filepath.Join(c.bin, "postgres"), append(c.args, "-p", strconv.Itoa(c.port))...)
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGKILL}
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	done := make(chan struct{})
	c.done = done
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(done) }(c.cmd)
	if err := c.waitReady(); err != nil {
		c.kill()
		return err
	}
	return nil
}

// waitReady polls the server until it accepts a connection, exits, or
// startTimeout passes.
func (c *Cluster) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	pause := 5 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, c.URL)
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		select {
		case <-c.done:
			return fmt.Errorf("pgtest: postgres exited: %s", c.out.String())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: postgres not ready after %v: %v\n%s", startTimeout, err, c.out.String())
		}
		time.Sleep(pause) // polling interval, not synchronisation
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// kill stops the server at once.
func (c *Cluster) kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// Stop shuts the server down (fast shutdown, then a kill after 10 s) and
// removes its directory.
func (c *Cluster) Stop() error {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			c.kill()
		}
	}
	return os.RemoveAll(c.Dir)
}

// Log returns what the server wrote so far.
func (c *Cluster) Log() string { return c.out.String() }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// syncBuffer is a bytes.Buffer safe for a process writing while another
// goroutine reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
