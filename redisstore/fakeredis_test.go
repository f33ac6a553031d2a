package redisstore_test

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
)

// fakeRedis is a tiny RESP2 server that answers just what the start-up
// check sends, with a version of the test's choosing: a real Redis older
// than 7.0 is not installed here.
type fakeRedis struct {
	ln        net.Listener
	version   string
	infoCalls atomic.Int32
	wg        sync.WaitGroup
	mu        sync.Mutex
	conns     []net.Conn
}

// startFakeRedis listens on addr ("127.0.0.1:0" for any port).
func startFakeRedis(t *testing.T, addr, version string) *fakeRedis {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, version: version}
	f.wg.Go(f.accept)
	t.Cleanup(func() {
		_ = ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			_ = c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

func (f *fakeRedis) addr() string { return f.ln.Addr().String() }

// client returns a go-redis client that speaks RESP2 without HELLO or
// CLIENT SETINFO, which the fake does not know.
func (f *fakeRedis) client(t *testing.T) *redis.Client {
	return fakeClient(t, f.addr())
}

func fakeClient(t *testing.T, addr string) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func (f *fakeRedis) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		f.wg.Go(func() { f.serve(c) })
	}
}

func (f *fakeRedis) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		args, err := readCommand(r)
		if err != nil {
			return
		}
		var reply string
		switch strings.ToUpper(args[0]) {
		case "PING":
			reply = "+PONG\r\n"
		case "INFO":
			f.infoCalls.Add(1)
			reply = bulk("# Server\r\nredis_version:" + f.version + "\r\n")
		case "CONFIG":
			reply = "*2\r\n" + bulk("maxmemory-policy") + bulk("noeviction")
		case "SCRIPT":
			sum := sha1.Sum([]byte(args[len(args)-1]))
			reply = bulk(hex.EncodeToString(sum[:]))
		case "SMEMBERS", "HGETALL":
			reply = "*0\r\n"
		case "GET": // the layout check (layout.go): a fresh server
			reply = "$-1\r\n"
		case "EXISTS":
			reply = ":0\r\n"
		case "SET":
			reply = "+OK\r\n"
		default:
			reply = "-ERR the fake does not know " + args[0] + "\r\n"
		}
		if _, err := io.WriteString(c, reply); err != nil {
			return
		}
	}
}

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(line[1:]))
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}
