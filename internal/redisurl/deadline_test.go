package redisurl

import (
	"context"
	"net"
	"testing"
	"time"
)

// A client made from a URL honours its call's context deadline against a
// server that accepts the connection and never answers (a frozen
// process, a link that drops without a reset): the call ends at the
// deadline, not at go-redis's read timeout (5 s, and retried). The
// dashboard's 2 s read of each queue took 15 s against such a server
// (an outside trial). The bound, 2 s for a 100 ms deadline, is the
// behaviour: without the option the call takes 5 s or more.
func TestClientHonoursTheContextDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // read nothing, answer nothing
		}
	}()
	for _, tc := range []struct {
		name    string
		raw     string
		cluster bool
	}{
		{"server", "redis://" + ln.Addr().String(), false},
		{"cluster", "redis://" + ln.Addr().String(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk, err := Parse(tc.raw, tc.cluster, nil)
			if err != nil {
				t.Fatal(err)
			}
			rdb := mk()
			defer rdb.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			err = rdb.Ping(ctx).Err()
			if took := time.Since(start); err == nil || took > 2*time.Second {
				t.Fatalf("Ping against a silent server with a 100 ms deadline: %v after %v, want an error at the deadline", err, took)
			}
		})
	}
}
