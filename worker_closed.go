package hopper

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
)

// storeClosed reports whether err says that its store is closed for good,
// so that no call can succeed again: an error in its chain has a method
// StoreClosed() bool that returns true, as redisstore.ErrClientClosed (the
// go-redis client was closed) has.
func storeClosed(err error) bool {
	var c interface{ StoreClosed() bool }
	return errors.As(err, &c) && c.StoreClosed()
}

// closeWatch is the store one Run's engine works on: st itself, but the
// errors of the calls the engine makes over and over while it runs (Claim
// and WaitReady, and Heartbeat while quiet) are looked at, and the first
// that says the store is closed for good (storeClosed) is kept and ends
// the run, which would otherwise log it until its context ended. The
// store's capabilities are found through Unwrap (store.As).
type closeWatch struct {
	Store
	stop context.CancelFunc

	mu  sync.Mutex
	err error
}

func (s *closeWatch) Unwrap() Store { return s.Store }

// seen looks at the error of a call.
func (s *closeWatch) seen(err error) {
	if err == nil || !storeClosed(err) {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.stop()
}

// closed returns the error that ended the run, nil when none did.
func (s *closeWatch) closed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *closeWatch) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	if err != nil {
		s.seen(err)
	}
	return res, err
}

func (s *closeWatch) WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.Store.WaitReady(ctx, queues, timeout)
	if err != nil {
		s.seen(err)
	}
	return got, err
}

func (s *closeWatch) Heartbeat(ctx context.Context, w store.WorkerInfo, ttl time.Duration) error {
	err := s.Store.Heartbeat(ctx, w, ttl)
	if err != nil {
		s.seen(err)
	}
	return err
}
