package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
)

// subscribed returns a subscription to a channel of srv whose
// confirmation was read, and a pinger to read it with.
func subscribed(t *testing.T, srv *redistest.Server) (*pinger, func(context.Context) error) {
	t.Helper()
	ps := srv.Client(t).Subscribe(t.Context(), "ping-test")
	t.Cleanup(func() { ps.Close() })
	var p pinger
	if _, err := p.receive(t.Context(), ps); err != nil {
		t.Fatal(err)
	}
	return &p, func(ctx context.Context) error {
		for {
			if _, err := p.receive(ctx, ps); err != nil {
				return err
			}
		}
	}
}

// TestPingerLosesAFrozenServer: a subscription whose server froze (a
// stopped process; a link cut without a reset looks the same) is lost
// once its PING goes unanswered, so that the caller subscribes again
// where the cluster's layout now says. A written PING succeeds against a
// frozen server: the subscription used to stay until it came back.
func TestPingerLosesAFrozenServer(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Private())
	_, rest := subscribed(t, srv)
	srv.Freeze(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*(notifyHealthCheck+pongWait))
	defer cancel()
	if err := rest(ctx); !errors.Is(err, errNoPong) {
		t.Fatalf("a subscription to a frozen server ended with %v, want errNoPong", err)
	}
}

// TestPingerKeepsASilentServer: a server that answers its PING keeps its
// subscription however long no message comes.
func TestPingerKeepsASilentServer(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Private())
	p, rest := subscribed(t, srv)
	end := time.Now().Add(notifyHealthCheck + pongWait + time.Second)
	ctx, cancel := context.WithDeadline(t.Context(), end)
	defer cancel()
	// The connection's deadline is ctx's, which may pass an instant
	// before ctx says so: only an end before it counts.
	if err := rest(ctx); time.Now().Before(end) {
		t.Fatalf("a subscription to a live, silent server ended with %v", err)
	}
	if p.pinged {
		t.Fatal("the server's PONG did not count as an answer")
	}
}
