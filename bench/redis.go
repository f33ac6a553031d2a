package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a redis-server child process started by this program.
type redisServer struct {
	addr   string
	cmd    *exec.Cmd
	log    *lockedBuffer // the server's stdout and stderr
	exited chan struct{} // closed when the process has exited
}

// lockedBuffer is a bytes.Buffer the child's output goroutines and the
// main goroutine can use at the same time.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p to the buffer.
func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startRedis starts redis-server on a free loopback port, without
// persistence, and waits until it answers PING. It retries with another
// port if the one it picked was taken in the meantime.
func startRedis() (*redisServer, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("redis-server is not on PATH: install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or pass -redis HOST:PORT to use a running server (it will be FLUSHALLed)")
	}
	var last error
	for range 3 {
		s, err := startRedisOnce(path)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

// startRedisOnce makes one attempt of startRedis with the binary at path.
func startRedisOnce(path string) (*redisServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &redisServer{
		addr:   net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		log:    &lockedBuffer{},
		exited: make(chan struct{}),
	}
	s.cmd = exec.Command(path,
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = childProcAttr()
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()

	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("redis-server exited at start-up:\n%s", s.log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("redis-server on %s did not answer PING within 10 s: %v\n%s", s.addr, err, s.log.String())
		}
	}
}

// stop terminates the server (SIGTERM, then SIGKILL after 3 s) and waits
// for it to exit. It is safe to call more than once.
func (s *redisServer) stop() {
	if s == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// freePort asks the kernel for a free TCP port on the loopback interface.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// infoSnapshot is one reading of the INFO sections the cost measurement
// uses.
type infoSnapshot struct {
	fields map[string]string // cpu, memory and stats fields by name
	calls  map[string]int64  // commandstats: calls per command name
}

// takeSnapshot reads INFO commandstats, cpu, memory and stats in one
// pipeline (one section per INFO, which every Redis version accepts).
func takeSnapshot(ctx context.Context, rdb *redis.Client) (infoSnapshot, error) {
	sections := []string{"commandstats", "cpu", "memory", "stats"}
	cmds := make([]*redis.StringCmd, len(sections))
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, sec := range sections {
			cmds[i] = p.Info(ctx, sec)
		}
		return nil
	})
	if err != nil {
		return infoSnapshot{}, fmt.Errorf("INFO: %w", err)
	}
	snap := infoSnapshot{fields: map[string]string{}}
	for i, c := range cmds {
		f := parseInfo(c.Val())
		if sections[i] == "commandstats" {
			snap.calls = parseCommandStats(f)
			continue
		}
		for k, v := range f {
			snap.fields[k] = v
		}
	}
	return snap, nil
}

// number returns the numeric field key, or NaN when it is missing or not a
// number.
func (s infoSnapshot) number(key string) float64 {
	v, err := strconv.ParseFloat(s.fields[key], 64)
	if err != nil {
		return nan
	}
	return v
}

// parseInfo turns the text of an INFO reply into its key:value fields,
// skipping section headers and blank lines.
func parseInfo(text string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// parseCommandStats extracts the calls count of every cmdstat_ field, as in
// "cmdstat_get:calls=2,usec=15,usec_per_call=7.50,...", keyed by the
// command name ("get", "client|setinfo"). Fields that do not parse are
// skipped.
func parseCommandStats(fields map[string]string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range fields {
		name, ok := strings.CutPrefix(k, "cmdstat_")
		if !ok {
			continue
		}
		for part := range strings.SplitSeq(v, ",") {
			if n, ok := strings.CutPrefix(part, "calls="); ok {
				if calls, err := strconv.ParseInt(n, 10, 64); err == nil {
					out[name] = calls
				}
				break
			}
		}
	}
	return out
}

// harnessCommand reports whether a commandstats name is one the benchmark
// itself sends to measure (INFO, CONFIG RESETSTAT), so it is left out of
// the per-job command count.
func harnessCommand(name string) bool {
	base, _, _ := strings.Cut(name, "|")
	return base == "info" || base == "config"
}

// commandDelta returns the calls per command between two snapshots,
// without the harness's own commands and without commands not called.
func commandDelta(before, after infoSnapshot) map[string]int64 {
	out := map[string]int64{}
	for name, n := range after.calls {
		if d := n - before.calls[name]; d > 0 && !harnessCommand(name) {
			out[name] = d
		}
	}
	return out
}

// serverVersion returns redis_version from INFO server.
func serverVersion(ctx context.Context, rdb *redis.Client) (string, error) {
	text, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	if v := parseInfo(text)["redis_version"]; v != "" {
		return v, nil
	}
	return "unknown", nil
}
