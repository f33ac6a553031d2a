package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// Environment variables the package reads.
const (
	// EnvRedis names an existing server (host:port) for shared servers.
	EnvRedis = "HOPPER_TEST_REDIS"
	// EnvCluster names existing cluster nodes (host:port, comma-separated)
	// for shared clusters.
	EnvCluster = "HOPPER_TEST_REDIS_CLUSTER"
)

// inCI reports whether the tests run under CI, where a missing Redis is a
// failure rather than a skip.
func inCI() bool {
	v := os.Getenv("CI")
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// requireBinary returns the path of the program name, or ends the test: a
// skip on a developer machine, a failure under CI.
func requireBinary(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := fmt.Sprintf("redistest: %s not found on PATH (install Redis 7 or newer, e.g. apt-get install redis-server, or set %s=host:port)", name, EnvRedis)
	if inCI() {
		t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
	}
	t.Skip(msg)
	return ""
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
// Callers retry when the server they start cannot bind it after all.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("redistest: find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}
