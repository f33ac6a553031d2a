package redisstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// leaseStore starts a private server and returns it, a client of it and
// a store on that client that sends one queued call a round trip, with
// one job ("warm-up") already enqueued on queue q, so the start-up check
// and the queue's registration are behind it. The warm-up's connection is
// back in the pool: the next calls take theirs with the hooks the test
// adds.
func leaseStore(t *testing.T) (*redistest.Server, *redis.Client, *redisstore.Store) {
	t.Helper()
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	s := storeOn(t, rdb, &redisstore.Config{CoalesceMaxJobs: 1})
	redisstore.FixFlights(s)
	mustEnqueue(t, s, job("q", "warm-up"))
	redisstore.DropSpareLeases(s)
	return srv, rdb, s
}

// poolTakes returns how many times rdb's pool was asked for a
// connection.
func poolTakes(rdb *redis.Client) uint32 {
	st := rdb.PoolStats()
	return st.Hits + st.Misses
}

// leaders is how many round trips the batchers of leaseStore's stores keep
// in flight (redisstore.FixFlights).
const leaders = 1

// queuedBehindLeaders enqueues as many jobs as a batcher keeps round
// trips in flight (leaders), whose calls lead (their
// round trips held in the hook until release), then queued jobs behind
// them, one call each, and returns the IDs and a function that releases
// the leaders and waits for every call. onFlush is called with the number
// of each later FCALL, before it is sent, on the goroutine that sends it.
func queuedBehindLeaders(t *testing.T, s *redisstore.Store, rdb *redis.Client, queued int, onFlush func(n int32)) (ids []string, release func() []error) {
	t.Helper()
	var fcalls atomic.Int32
	entered := make(chan struct{}, leaders)
	hold := make(chan struct{})
	rdb.AddHook(eachCommand(func(cmd redis.Cmder) {
		if !isScriptCall(cmd) {
			return
		}
		if n := fcalls.Add(1); n <= leaders {
			entered <- struct{}{}
			<-hold
		} else if onFlush != nil {
			onFlush(n - leaders)
		}
	}))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	enqueue := func(id string) {
		ids = append(ids, id)
		wg.Go(func() {
			if _, err := s.Enqueue(context.Background(), []*store.NewJob{job("q", id)}); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("Enqueue %s: %w", id, err))
				mu.Unlock()
			}
		})
	}
	for i := range leaders {
		enqueue(fmt.Sprintf("lead-%d", i))
	}
	for range leaders {
		<-entered
	}
	for i := range queued {
		enqueue(fmt.Sprintf("queued-%02d", i))
	}
	for redisstore.QueuedEnqueues(s) < queued {
		runtime.Gosched() // the calls are on their way into the queue
	}
	return ids, func() []error {
		close(hold)
		wg.Wait()
		return errs
	}
}

// storedOnce fails t unless each of ids is a stored job of queue q, and q
// holds no other ready job than them and the warm-up job.
func storedOnce(t *testing.T, s *redisstore.Store, ids []string) {
	t.Helper()
	in := hopper.NewInspector(s)
	for _, id := range ids {
		if _, err := in.GetJob(t.Context(), "q", id); err != nil {
			t.Errorf("job %s: %v", id, err)
		}
	}
	st, err := in.GetQueueStats(t.Context(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(ids) + 1); st.Counts.Ready != want {
		t.Errorf("queue holds %d ready jobs, want %d", st.Counts.Ready, want)
	}
}

// TestFlusherHoldsOneConnection: calls queued behind the round trips in
// flight go out one round trip after another on the connection of the
// leading call the flusher follows, not on one taken from the pool for
// each round trip (go-redis checks a connection's health with a system
// call each time one is taken).
func TestFlusherHoldsOneConnection(t *testing.T) {
	_, rdb, s := leaseStore(t)

	const queued = 20
	ids, release := queuedBehindLeaders(t, s, rdb, queued, nil)
	before := poolTakes(rdb)
	if errs := release(); len(errs) > 0 {
		t.Fatal(errs)
	}
	// The leaders take one each (when their held round trips go); the
	// flushers (one a leader at most) carry on with theirs.
	if takes := poolTakes(rdb) - before; takes > leaders {
		t.Errorf("the pool was asked for a connection %d times for %d leading and %d queued round trips, want at most %d", takes, leaders, queued, leaders)
	}
	storedOnce(t, s, ids)
}

// TestFlusherConnectionKilled: when the connection a flusher holds is
// killed between two of its round trips, the round trip that found it
// dead goes again on a connection from the pool, and the flusher takes
// another for the rest: every call returns without an error and every job
// is stored once.
func TestFlusherConnectionKilled(t *testing.T) {
	srv, rdb, s := leaseStore(t)
	admin := srv.Client(t)

	var killed atomic.Bool
	ids, release := queuedBehindLeaders(t, s, rdb, 20, func(n int32) {
		if n == 8 && killed.CompareAndSwap(false, true) {
			// Every client connection but admin's, the flusher's among them.
			if err := admin.ClientKillByFilter(context.Background(), "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
				t.Error(err)
			}
		}
	})
	if errs := release(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if !killed.Load() {
		t.Fatal("no connection was killed: the flushers sent fewer than 8 round trips")
	}
	storedOnce(t, s, ids)
}

// TestFlusherGivesItsConnectionBack: a flusher that keeps sending gives
// its connection back and takes another every 256 round trips (its
// leading call's counted), so the pool's checks (a connection's health,
// ConnMaxLifetime) still run while calls keep coming.
func TestFlusherGivesItsConnectionBack(t *testing.T) {
	_, rdb, s := leaseStore(t)

	const queued = 600
	ids, release := queuedBehindLeaders(t, s, rdb, queued, nil)
	before := poolTakes(rdb)
	if errs := release(); len(errs) > 0 {
		t.Fatal(errs)
	}
	// The leader takes one. The flusher carries on with its leader's
	// (one round trip sent) and takes another before each 256th: it
	// sends the 600 with 2 more takes. Without the retakes it would take
	// none.
	const want = leaders + 2
	if takes := poolTakes(rdb) - before; takes != want {
		t.Errorf("the pool was asked for a connection %d times for %d leading and %d queued round trips, want %d", takes, leaders, queued, want)
	}
	storedOnce(t, s, ids)
}

// TestClientClosedAfterLastEnqueue: a program may close its client as
// soon as its last Enqueue returned, while the flusher that answered it
// still holds its connection (it lingers for more calls). Its giving back
// of that connection, after the close, must not make go-redis log a
// connection given back to a closed pool.
func TestClientClosedAfterLastEnqueue(t *testing.T) {
	_, rdb, s := leaseStore(t)

	var logs redisLog
	redis.SetLogger(&logs)
	t.Cleanup(func() { redis.SetLogger(&redisLog{to: log.New(os.Stderr, "redis: ", log.LstdFlags)}) })
	closed := make(chan struct{})
	gaveBack := make(chan struct{})
	var once sync.Once
	redisstore.OnLeaseGiveBack(s, func(release func()) {
		go func() {
			<-closed
			release()
			once.Do(func() { close(gaveBack) })
		}()
	})
	// Another store on the same client shares its parked lease (one per
	// client): its call, made while the leaders' round trips are held,
	// parks its connection. One call is queued behind the leading ones: a
	// flusher sends it on the connection of the leader it follows. When
	// the batcher has nothing left, it finds a lease parked and gives its
	// own back, after the client's Close.
	other := storeOn(t, rdb, nil)
	mustEnqueue(t, other, job("q2", "other-warm-up"))
	redisstore.DropSpareLeases(other)
	_, release := queuedBehindLeaders(t, s, rdb, 1, nil)
	mustEnqueue(t, other, job("q2", "other"))
	if errs := release(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := rdb.Close(); err != nil {
		t.Fatal(err)
	}
	close(closed)
	<-gaveBack
	if got := logs.String(); strings.Contains(got, "Unexpected conn") {
		t.Errorf("go-redis logged, after the client was closed:\n%s", got)
	}
}

// redisLog is a go-redis logger that keeps what it is given, or writes it
// to a log.Logger.
type redisLog struct {
	mu sync.Mutex
	b  strings.Builder
	to *log.Logger
}

func (l *redisLog) Printf(_ context.Context, format string, v ...any) {
	if l.to != nil {
		l.to.Printf(format, v...)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", v...)
}

func (l *redisLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
