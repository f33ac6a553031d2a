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

	// readyHub and schedHub hold the goroutines blocked in WaitReady and
	// WaitSchedule (wait.go).
	readyHub, schedHub hub

	// newEvents wakes ReadEvents calls when any queue's stream grows.
	newEvents broadcast

	// rmu guards the worker registry and the registered schedules.
	rmu     sync.Mutex
	workers map[string]workerEntry
	// workerCmds are the commands waiting for workers (worker_control.go),
	// made on first use.
	workerCmds map[string]workerCmd
	// scheduleRuns are the last runs of each schedule, the latest first
	// (schedule_runs.go), made on first use.
	scheduleRuns map[scheduleKey][]store.ScheduleRun
	schedules    map[scheduleKey]store.ScheduleInfo
	// durations counts handler durations per queue, hour and kind|bucket
	// (store.Durations), guarded by rmu.
	durations map[string]map[int64]map[durationKey]int64
	// stored are the stored schedules and storedVer their version
	// (stored_schedules.go), also guarded by rmu.
	stored    map[scheduleKey]store.StoredSchedule
	storedVer int64

	// wf holds the workflows (workflow.go).
	wf wfState
}

var _ store.Store = (*Store)(nil)

// Config configures a Store. The zero value and nil mean defaults.
type Config struct {
	// Clock is where the store reads the time. Every time the store
	// records or compares comes from it, truncated to the millisecond;
	// tests use it to move time forward by hand. It must be safe for
	// concurrent use. Defaults to time.Now.
	Clock func() time.Time
}

// Validate reports whether o is a valid configuration. Every Config is:
// it returns nil. It exists so that every hopper configuration can be
// checked the same way.
func (o Config) Validate() error { return nil }

// New returns an empty Store, ready for use. A nil cfg means defaults.
func New(cfg *Config) *Store {
	s := &Store{
		clock:     time.Now,
		workers:   make(map[string]workerEntry),
		schedules: make(map[scheduleKey]store.ScheduleInfo),
	}
	if cfg != nil && cfg.Clock != nil {
		s.clock = cfg.Clock
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

// nowUs is now with the rate limits' finer clock: the same reading in Unix
// µs too.
func (s *Store) nowUs() (time.Time, int64, int64) {
	c := s.clock()
	t := c.Truncate(time.Millisecond)
	return t, t.UnixMilli(), c.UnixMicro()
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
			q = newQueue(name, &s.readyHub, &s.schedHub, &s.newEvents)
			q.wfInbox = &s.wf.inbox
			// A new queue starts signalled: whatever its waiters missed
			// before it existed is worth one look.
			q.readySig.raised.Store(true)
			q.schedSig.raised.Store(true)
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
