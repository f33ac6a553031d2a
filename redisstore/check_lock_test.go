package redisstore_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// TestCheckWaitHonoursContext: a call that finds another call's start-up
// check running (against a server that takes the connection and never
// answers) gives up when its own context ends, with its context's error,
// while the other check still waits. It waited for that check, seconds of
// timeouts against a server down at start-up, past a 200 ms deadline.
func TestCheckWaitHonoursContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{}, 1)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	release := func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}
	t.Cleanup(release)

	rdb := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), ReadTimeout: time.Minute, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	s := redisstore.New(rdb, nil)
	first := make(chan error, 1)
	go func() {
		_, err := s.Enqueue(context.Background(), []*store.NewJob{job("q", "a")})
		first <- err
	}()
	<-accepted // the first call's check is waiting for the server

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = s.Enqueue(ctx, []*store.NewJob{job("q", "b")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Enqueue with a deadline while another call's check runs: %v, want its context's deadline", err)
	}
	select {
	case err := <-first:
		t.Fatalf("the first call's check returned (%v) before the second call: the second waited for it", err)
	default:
	}
	release()
	if err := <-first; err == nil {
		t.Error("the first call passed its check against a server that never answered")
	}
}
