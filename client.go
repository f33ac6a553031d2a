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

// Validate reports whether c is a valid configuration: nil, or an error
// wrapping ErrInvalidConfig that names the field. NewClient panics with the
// same error; call Validate first when the values come from outside the
// program.
func (c ClientConfig) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults returns c with its defaults applied, or the error of the
// first invalid field.
func (c ClientConfig) withDefaults() (ClientConfig, error) {
	if c.Queue == "" {
		c.Queue = DefaultQueue
	}
	if err := ValidateQueue(c.Queue); err != nil {
		return c, fmt.Errorf("%w: ClientConfig.Queue: %w", ErrInvalidConfig, err)
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.MaxRetries > MaxRetriesLimit {
		return c, fmt.Errorf("%w: ClientConfig.MaxRetries %d is above %d", ErrInvalidConfig, c.MaxRetries, MaxRetriesLimit)
	}
	if c.MaxArgsBytes == 0 {
		c.MaxArgsBytes = DefaultMaxArgsBytes
	}
	return c, nil
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
	var c0 ClientConfig
	if cfg != nil {
		c0 = *cfg
	}
	resolved, err := c0.withDefaults()
	if err != nil {
		panic(err)
	}
	c := &Client{st: st, cfg: resolved}
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
