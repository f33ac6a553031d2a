package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// replyError is a Redis error reply as go-redis returns it.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

var _ redis.Error = replyError("")

func TestWrapClassifiesRedisErrors(t *testing.T) {
	cases := []struct {
		err  error
		want error
		temp bool
	}{
		{replyError("OOM command not allowed when used memory > 'maxmemory'."), ErrOOM, true},
		{replyError("NOPERM User u has no permissions to access the 'x' key"), ErrNoPerm, false},
		{replyError("WRONGPASS invalid username-password pair or user is disabled."), ErrAuth, false},
		{replyError("NOAUTH Authentication required."), ErrAuth, false},
		{replyError("READONLY You can't write against a read only replica."), ErrReadOnly, true},
		{replyError("LOADING Redis is loading the dataset in memory"), ErrLoading, true},
		{replyError("CLUSTERDOWN The cluster is down"), ErrClusterDown, true},
		{replyError("TRYAGAIN Multiple keys request during rehashing of slot"), ErrClusterDown, true},
		{replyError("NOREPLICAS Not enough good replicas to write."), ErrUnavailable, true},
		{io.EOF, ErrUnavailable, true},
		{syscall.ECONNREFUSED, ErrUnavailable, true},
		{redis.ErrClosed, ErrUnavailable, true}, // a retired node's; Store.closedCheck tells the client's
		{context.Canceled, nil, false},
		{replyError("ERR unknown command"), nil, false},
	}
	for _, c := range cases {
		t.Run(c.err.Error(), func(t *testing.T) {
			err := wrap("enqueue", c.err)
			if !errors.Is(err, c.err) {
				t.Errorf("wrap lost the go-redis error: %v", err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("errors.Is(%v, %v) = false", err, c.want)
			}
			for _, other := range []error{ErrOOM, ErrNoPerm, ErrAuth, ErrReadOnly, ErrLoading, ErrClusterDown, ErrUnavailable, ErrClientClosed} {
				if other != c.want && errors.Is(err, other) {
					t.Errorf("%v also matches %v", err, other)
				}
			}
			if got := Temporary(err); got != c.temp {
				t.Errorf("Temporary(%v) = %v, want %v", err, got, c.temp)
			}
			// What package hopper's waits ask of it, not importing this one.
			var temp interface{ StoreTemporary() bool }
			if got := errors.As(err, &temp) && temp.StoreTemporary(); got != c.temp {
				t.Errorf("StoreTemporary of %v = %v, want %v", err, got, c.temp)
			}
			// What the dashboard asks: could Redis not be reached?
			var unr interface{ StoreUnreachable() bool }
			wantUnr := c.want == ErrUnavailable || c.want == ErrLoading || c.want == ErrClusterDown || c.want == ErrReadOnly
			if got := errors.As(err, &unr) && unr.StoreUnreachable(); got != wantUnr {
				t.Errorf("StoreUnreachable of %v = %v, want %v", err, got, wantUnr)
			}
			// Wrapping again (an operation inside another) keeps one class.
			outer := wrap("outer", fmt.Errorf("inner: %w", err))
			if c.want != nil && !errors.Is(outer, c.want) {
				t.Errorf("rewrapped error lost its class: %v", outer)
			}
		})
	}
	if wrap("x", nil) != nil {
		t.Error("wrap(nil) is not nil")
	}
}
