package hopper

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hopperq/hopper/store"
)

// Defaults used when a config or option leaves a field zero.
const (
	// DefaultQueue is the queue used when neither EnqueueOpts nor the args
	// name one.
	DefaultQueue = "default"
	// DefaultMaxRetries is how many times a failed job is retried unless its
	// options say otherwise: 25 retries, 26 attempts in all.
	DefaultMaxRetries = 25
)

// ClientConfig configures a Client. The zero value (or nil) means defaults.
type ClientConfig struct {
	// Queue is the queue for jobs that name none. Defaults to "default".
	Queue string
	// MaxRetries is the retry count for jobs that set none. Defaults to
	// DefaultMaxRetries (25). Negative means no retries.
	MaxRetries int
	// MaxArgsBytes rejects jobs whose encoded args are larger, with
	// ErrArgsTooLarge. Defaults to 1 MiB; negative means no limit.
	MaxArgsBytes int
}

// Client enqueues jobs into a Store. It is safe for concurrent use; create
// one per Store and share it.
type Client struct {
	st  Store
	cfg ClientConfig

	mu      sync.Mutex // serialises Use
	mws     []EnqueueMiddleware
	enqueue atomic.Pointer[EnqueueFunc]
}

// NewClient returns a Client that enqueues into store. A nil cfg means
// defaults. It panics if store is nil or cfg has a field out of range, since
// both are programming errors.
func NewClient(st Store, cfg *ClientConfig) *Client {
	if st == nil {
		panic("hopper: NewClient with a nil Store")
	}
	c := &Client{st: st}
	if cfg != nil {
		c.cfg = *cfg
	}
	if c.cfg.Queue == "" {
		c.cfg.Queue = DefaultQueue
	}
	if err := ValidateQueue(c.cfg.Queue); err != nil {
		panic(fmt.Sprintf("hopper: ClientConfig.Queue: %v", err))
	}
	switch {
	case c.cfg.MaxRetries == 0:
		c.cfg.MaxRetries = DefaultMaxRetries
	case c.cfg.MaxRetries < 0:
		c.cfg.MaxRetries = 0
	}
	if c.cfg.MaxRetries > MaxRetriesLimit {
		panic(fmt.Sprintf("hopper: ClientConfig.MaxRetries %d is above %d", c.cfg.MaxRetries, MaxRetriesLimit))
	}
	if c.cfg.MaxArgsBytes == 0 {
		c.cfg.MaxArgsBytes = DefaultMaxArgsBytes
	}
	f := EnqueueFunc(st.Enqueue)
	c.enqueue.Store(&f)
	return c
}

// Store returns the store the client enqueues into.
func (c *Client) Store() Store { return c.st }

// Use adds enqueue middleware, the first outermost, after any added before.
// It is safe to call at any time; calls already under way keep the chain
// they started with.
func (c *Client) Use(mws ...EnqueueMiddleware) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mws = append(c.mws, mws...)
	f := EnqueueFunc(c.st.Enqueue)
	for i := len(c.mws) - 1; i >= 0; i-- {
		f = c.mws[i](f)
	}
	c.enqueue.Store(&f)
}

// EnqueueJobs stores already encoded jobs through the client's middleware.
// Most callers use Enqueue or EnqueueMany; this is for tools that move jobs
// between stores or enqueue kinds they have no Go type for.
func (c *Client) EnqueueJobs(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	res, err := (*c.enqueue.Load())(ctx, jobs)
	if err != nil {
		return nil, fmt.Errorf("hopper: enqueue: %w", err)
	}
	if len(res) != len(jobs) {
		return nil, fmt.Errorf("hopper: enqueue: st returned %d results for %d jobs", len(res), len(jobs))
	}
	return res, nil
}
