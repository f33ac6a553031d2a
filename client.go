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
	// DefaultMaxRetries (25); NoRetry (-1) means no retries. Below -1 or
	// above store.MaxRetriesLimit (10,000) is refused with
	// ErrInvalidConfig, as EnqueueOpts.MaxRetries refuses it.
	MaxRetries int
	// MaxArgsBytes rejects jobs whose encoded args are larger, with
	// ErrArgsTooLarge. Defaults to 1 MiB; negative means no limit here (a
	// Redis server still refuses a value over its proto-max-bulk-len, 512
	// MB by default, by closing the connection).
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
	if err := store.ValidateEnqueueQueue(c.Queue); err != nil {
		return c, errorf("%w: ClientConfig.Queue: %w", ErrInvalidConfig, err)
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries == NoRetry:
		c.MaxRetries = 0
	case c.MaxRetries < 0:
		return c, fmt.Errorf("%w: ClientConfig.MaxRetries %d: use NoRetry (-1) for none", ErrInvalidConfig, c.MaxRetries)
	}
	if c.MaxRetries > store.MaxRetriesLimit {
		return c, fmt.Errorf("%w: ClientConfig.MaxRetries %d is above %d", ErrInvalidConfig, c.MaxRetries, store.MaxRetriesLimit)
	}
	if c.MaxArgsBytes == 0 {
		c.MaxArgsBytes = DefaultMaxArgsBytes
	}
	return c, nil
}

// Client enqueues jobs into a Store. It is safe for concurrent use; create
// one per Store and share it. The functions that take a *Client (Enqueue,
// EnqueueMany, EnqueueAndWait, WaitResult, Prepare, PrepareMany,
// EnqueuePrepared, EnqueueWorkflow, EnqueueTasks) and its methods that
// return an error (WaitJob, WaitWorkflow; Subscribe yields it) fail with an
// error wrapping ErrInvalidConfig for a nil one. Use on a nil one panics,
// and Store returns nil.
type Client struct {
	st  Store
	cfg ClientConfig

	mu  sync.Mutex // serialises Use
	mws []EnqueueMiddleware
	// chain is the middleware around storeJobs; nil until Use adds one,
	// and then every enqueue goes through it.
	chain atomic.Pointer[EnqueueFunc]
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
	return &Client{st: st, cfg: resolved}
}

// errNilClient is the error of a function given a nil *Client, or a zero
// Client (unmade).
var errNilClient = fmt.Errorf("%w: a nil or zero *Client (make one with NewClient)", ErrInvalidConfig)

// unmade reports whether c is nil or a zero Client, which NewClient did
// not make: it has no store.
func (c *Client) unmade() bool { return c == nil || c.st == nil }

// Store returns the store the client enqueues into, nil for a nil Client.
func (c *Client) Store() Store {
	if c == nil {
		return nil
	}
	return c.st
}

// Use adds enqueue middleware, the first outermost, after any added before.
// It is safe to call at any time; calls already under way keep the chain
// they started with. It panics if one is nil, adding none, and on a nil
// Client (a programming error, reported where it is made rather than at
// the first enqueue, as for a nil handler).
func (c *Client) Use(mws ...EnqueueMiddleware) {
	if c == nil {
		panic("hopper: Client.Use on a nil *Client (make one with NewClient)")
	}
	for i, m := range mws {
		if m == nil {
			panic(fmt.Sprintf("hopper: Client.Use with a nil EnqueueMiddleware (argument %d)", i))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mws = append(c.mws, mws...)
	f := c.wrap(c.storeJobs)
	c.chain.Store(&f)
}

// wrap returns f inside the client's middleware.
func (c *Client) wrap(f EnqueueFunc) EnqueueFunc {
	for i := len(c.mws) - 1; i >= 0; i-- {
		f = c.mws[i](f)
	}
	return f
}

// enqueue stores jobs through the client's middleware and returns one
// JobInfo per job, in order. Without middleware it is storeJobs.
func (c *Client) enqueue(ctx context.Context, jobs []*PreparedJob) ([]*JobInfo, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	f := c.storeJobs
	if chain := c.chain.Load(); chain != nil {
		f = *chain
	}
	infos, err := f(ctx, jobs)
	if err != nil {
		return nil, errorf("hopper: enqueue: %w", err)
	}
	if len(infos) != len(jobs) {
		return nil, fmt.Errorf("hopper: enqueue: %d results for %d jobs (an enqueue middleware must return one per job)", len(infos), len(jobs))
	}
	return infos, nil
}

// enqueueOne is enqueue for one job, without the slices of a batch when
// the client has no middleware (Enqueue's path): batch holds &p.job.
func (c *Client) enqueueOne(ctx context.Context, p *PreparedJob, batch []*store.NewJob) (*JobInfo, error) {
	if c.chain.Load() != nil {
		infos, err := c.enqueue(ctx, []*PreparedJob{p})
		if err != nil {
			return nil, err
		}
		return infos[0], nil
	}
	res, err := c.st.Enqueue(ctx, batch)
	if err == nil && len(res) != 1 {
		err = fmt.Errorf("the store returned %d results for 1 job", len(res))
	}
	if err != nil {
		return nil, errorf("hopper: enqueue: %w", err)
	}
	return jobInfo(&p.job, res[0]), nil
}

// storeJobs is the innermost EnqueueFunc: one Store.Enqueue of the jobs,
// once their Meta, which middleware may have changed, is checked again.
func (c *Client) storeJobs(ctx context.Context, jobs []*PreparedJob) ([]*JobInfo, error) {
	if err := checkMetaAfterMiddleware(jobs, checkMeta); err != nil {
		return nil, err
	}
	batch := make([]*store.NewJob, len(jobs))
	for i, p := range jobs {
		batch[i] = &p.job
	}
	res, err := c.st.Enqueue(ctx, batch)
	if err != nil {
		return nil, err
	}
	if len(res) != len(batch) {
		return nil, fmt.Errorf("the store returned %d results for %d jobs", len(res), len(batch))
	}
	infos := make([]*JobInfo, len(batch))
	for i, j := range batch {
		infos[i] = jobInfo(j, res[i])
	}
	return infos, nil
}
