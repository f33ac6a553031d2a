package memstore

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
)

// Store is an in-memory store.Store. Create one with New; the zero value is
// not usable. All methods are safe for concurrent use by any number of
// goroutines. Nothing is persisted.
type Store struct {
	clock func() time.Time

	// queues maps a queue name to its state. It is copy-on-write: readers
	// load it without locking, writers (creating a queue) hold qmu.
	queues atomic.Pointer[map[string]*queue]
	qmu    sync.Mutex

	// token is the last fencing token issued, for every queue of the store.
	token atomic.Uint64

	// rmu guards the worker registry and the registered schedules.
	rmu       sync.Mutex
	workers   map[string]workerEntry
	schedules map[scheduleKey]store.ScheduleInfo
}

var _ store.Store = (*Store)(nil)

// Option configures a Store in New. A nil Option is ignored.
type Option func(*Store)

// WithClock makes the store read the time from now instead of time.Now. Every
// time the store records or compares comes from it, truncated to the
// millisecond; tests use it to move time forward by hand. now must be safe
// for concurrent use. A nil now keeps time.Now.
func WithClock(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.clock = now
		}
	}
}

// New returns an empty Store, ready for use. With no options it uses
// time.Now as its clock.
func New(opts ...Option) *Store {
	s := &Store{
		clock:     time.Now,
		workers:   make(map[string]workerEntry),
		schedules: make(map[scheduleKey]store.ScheduleInfo),
	}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	m := make(map[string]*queue)
	s.queues.Store(&m)
	return s
}

// now reads the store's clock once: as a time truncated to the millisecond
// (without a monotonic reading) and as Unix milliseconds.
func (s *Store) now() (time.Time, int64) {
	t := s.clock().Truncate(time.Millisecond)
	return t, t.UnixMilli()
}

// lookup returns the queue named name, or nil when the store never created
// it. It does not lock.
func (s *Store) lookup(name string) *queue {
	return (*s.queues.Load())[name]
}

// queue returns the queue named name, creating it when needed. When seen is
// true the queue is also marked as seen, so that Queues lists it; waiters
// create queues without marking them.
func (s *Store) queue(name string, seen bool) *queue {
	q := s.lookup(name)
	if q == nil {
		s.qmu.Lock()
		old := *s.queues.Load()
		if q = old[name]; q == nil {
			q = newQueue(name)
			m := make(map[string]*queue, len(old)+1)
			for k, v := range old {
				m[k] = v
			}
			m[name] = q
			s.queues.Store(&m)
		}
		s.qmu.Unlock()
	}
	if seen && !q.seen.Load() {
		q.seen.Store(true)
	}
	return q
}
