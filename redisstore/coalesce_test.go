package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// TestCoalescedEnqueue: many goroutines enqueue one job per call at once,
// some with contexts that end early. Every call gets its own result (its
// own ID, or the holder of a duplicate), cancelled calls return an error
// that wraps their context's, names the job's queue and says whether the
// job may be stored (it named no queue and spoke of "the jobs": an
// outside trial), a job whose call says it is not stored is not, and
// every job whose call succeeded is stored exactly once with its own args.
func TestCoalescedEnqueue(t *testing.T) {
	coalescedEnqueue(t, nil, nil)
}

// TestCoalescedEnqueueContextTimeouts: the same on a client that applies
// a context's deadline to the connection (ContextTimeoutEnabled), where a
// deadline that passes during a round trip fails it with go-redis's i/o
// timeout: the call's error still wraps the context's and says the job
// may be stored.
func TestCoalescedEnqueueContextTimeouts(t *testing.T) {
	coalescedEnqueue(t, func(o *redis.Options) { o.ContextTimeoutEnabled = true }, nil)
}

// TestCoalescedEnqueueWhileFlightsChange: the same while the batcher's
// limit of round trips in flight changes every few round trips (periods
// of a nanosecond), so that round trips end while more are in flight
// than the limit allows: no call is left waiting, none is answered with
// another's result, and no job is lost or stored twice.
func TestCoalescedEnqueueWhileFlightsChange(t *testing.T) {
	coalescedEnqueue(t, nil, func(s *redisstore.Store) { redisstore.SetFlightPeriod(s, time.Nanosecond) })
}

// coalescedEnqueue runs TestCoalescedEnqueue on a client that opts, when
// not nil, configures, and a store that set, when not nil, prepares
// before its first call; with set, it also fails t when the store's
// batchers never changed their limit.
func coalescedEnqueue(t *testing.T, opts func(*redis.Options), set func(*redisstore.Store)) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	if opts != nil {
		rdb = srv.Client(t, opts)
	}
	s := storeOn(t, rdb, nil)
	if set != nil {
		set(s)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	const goroutines, per = 16, 100
	type outcome struct {
		id      string
		wantDup bool
		res     store.EnqueueResult
		err     error
	}
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		out []outcome
	)
	before := float64(cmdCalls(t, rdb, "fcall"))
	for g := range goroutines {
		wg.Go(func() {
			for i := range per {
				id := fmt.Sprintf("g%d-%d", g, i)
				j := job(fmt.Sprintf("q%d", g%3), id)
				j.Args = []byte("args " + id)
				ctx := t.Context()
				var cancel context.CancelFunc
				switch i % 10 {
				case 3:
					ctx, cancel = context.WithCancel(ctx)
					cancel() // already over: nothing is sent
				case 5:
					// Over while the call runs: before it is sent,
					// while it waits for a merged round trip, or on
					// its way.
					ctx, cancel = context.WithTimeout(ctx, time.Duration(g*i%7)*20*time.Microsecond)
				}
				if i%10 == 7 {
					// A duplicate of a job this goroutine added before.
					j.ID = fmt.Sprintf("g%d-%d", g, i-1)
					j.Args = []byte("duplicate")
				}
				res, err := s.Enqueue(ctx, []*store.NewJob{j})
				if cancel != nil {
					cancel()
				}
				o := outcome{id: j.ID, wantDup: i%10 == 7, err: err}
				if err == nil {
					o.res = res[0]
				}
				mu.Lock()
				out = append(out, o)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	rounds := float64(cmdCalls(t, rdb, "fcall")) - before
	added := map[string]bool{}
	var notStored []string
	cut := map[bool]int{} // cancelled calls, by whether they said the job may be stored
	for _, o := range out {
		switch {
		case o.err != nil:
			if !errors.Is(o.err, context.Canceled) && !errors.Is(o.err, context.DeadlineExceeded) {
				t.Fatalf("Enqueue of %q: %v", o.id, o.err)
			}
			msg := o.err.Error()
			if !strings.HasPrefix(msg, `redisstore: enqueue into "`) {
				t.Fatalf("Enqueue of %q failed with %q, which names no queue", o.id, msg)
			}
			switch {
			case strings.Contains(msg, "the job was sent: it is not stored") && !store.MayBeStored(o.err):
				notStored = append(notStored, o.id)
				cut[false]++
			case strings.Contains(msg, "the job may be stored") && store.MayBeStored(o.err):
				cut[true]++
			default:
				t.Fatalf("Enqueue of %q failed with %q, which says neither that the job is not stored nor that it may be", o.id, msg)
			}
		case o.res.ID != o.id:
			t.Fatalf("Enqueue of %q got the result of %q", o.id, o.res.ID)
		case o.res.Duplicate != o.wantDup:
			t.Fatalf("Enqueue of %q: Duplicate %v, want %v", o.id, o.res.Duplicate, o.wantDup)
		case o.res.Duplicate:
		default:
			if added[o.id] {
				t.Fatalf("job %q added twice", o.id)
			}
			added[o.id] = true
		}
	}
	for _, o := range out {
		if o.err != nil || o.res.Duplicate {
			continue
		}
		j, err := hopper.NewInspector(s).GetJob(t.Context(), queueOf(o.id), o.id)
		if err != nil || string(j.Args) != "args "+o.id {
			t.Fatalf("job %q: %v, args %q", o.id, err, argsOf(j))
		}
	}
	for _, id := range notStored {
		if _, err := hopper.NewInspector(s).GetJob(t.Context(), queueOf(id), id); !errors.Is(err, hopper.ErrJobNotFound) {
			t.Errorf("job %q, whose Enqueue said none is stored: GetJob %v, want ErrJobNotFound", id, err)
		}
	}
	t.Logf("cancelled calls: %d said none is stored, %d that the job may be", cut[false], cut[true])
	var total int64
	for q := range 3 {
		st, err := hopper.NewInspector(s).GetQueueStats(t.Context(), fmt.Sprintf("q%d", q))
		if err != nil {
			t.Fatal(err)
		}
		total += st.Counts.Ready
	}
	if total < int64(len(added)) {
		t.Fatalf("%d jobs stored, but %d calls reported an add", total, len(added))
	}
	t.Logf("%d single-job calls went in %.0f script calls; the limit of round trips in flight changed %d times", len(out), rounds, redisstore.FlightSwitches(s))
	if set != nil && redisstore.FlightSwitches(s) == 0 {
		t.Errorf("the batchers never changed their limit of round trips in flight")
	}
}

func queueOf(id string) string {
	var g, i int
	fmt.Sscanf(id, "g%d-%d", &g, &i)
	return fmt.Sprintf("q%d", g%3)
}

func argsOf(j *store.JobRecord) []byte {
	if j == nil {
		return nil
	}
	return j.Args
}

// TestEnqueueRegistersQueueOnce: the queue registry is not written on every
// enqueue of a hot queue: twice at its first, then not again (within a
// minute).
func TestEnqueueRegistersQueueOnce(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	s := storeOn(t, rdb, &redisstore.Config{NoCoalescing: true})
	for i := range 20 {
		mustEnqueue(t, s, job("hot", fmt.Sprint(i)))
	}
	// The first enqueue's registration script (partition_learn.go) and
	// its pipeline's, with the queue's sentinels; none after.
	if n := cmdCalls(t, rdb, "sadd"); n != 2 {
		t.Fatalf("20 enqueues into one queue sent %v SADDs, want 2", n)
	}
	qs, err := s.ListQueues(t.Context())
	if err != nil || len(qs) != 1 || qs[0] != "hot" {
		t.Fatalf("Queues = %v, %v; want [hot]", qs, err)
	}
}

// TestEnqueueLargeBatch: a batch larger than one script call takes is split
// and still enqueued in order.
func TestEnqueueLargeBatch(t *testing.T) {
	s, _ := newStore(t, nil)
	var jobs []*store.NewJob
	for i := range 2500 {
		jobs = append(jobs, job("big", fmt.Sprintf("j%05d", i)))
	}
	jobs = append(jobs, job("big", "j00000")) // a duplicate in another chunk
	res, err := s.Enqueue(t.Context(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	if !res[2500].Duplicate || res[2499].Duplicate {
		t.Fatalf("results at the end: %+v, %+v", res[2499], res[2500])
	}
	got, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "big", Max: 5000, Lease: time.Minute})
	if err != nil || len(got.Jobs) != 2500 {
		t.Fatalf("Claim: %d jobs, %v; want 2500", len(got.Jobs), err)
	}
	for i, j := range got.Jobs {
		if j.ID != fmt.Sprintf("j%05d", i) {
			t.Fatalf("job %d is %q: order lost", i, j.ID)
		}
	}
}
