package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// prepArgs carries its own options, so Prepare must merge them as Enqueue
// does.
type prepArgs struct {
	N int `msgpack:"n"`
}

func (prepArgs) Kind() string { return "prep" }
func (prepArgs) EnqueueOpts() hopper.EnqueueOpts {
	return hopper.EnqueueOpts{Queue: "own", Timeout: time.Minute, Meta: map[string]string{"from": "args"}}
}

// TestPreparedMatchesEnqueue stores the same args once with Enqueue and
// once prepared, marshalled, unmarshalled and enqueued, and compares the
// records: the same queue, kind, args bytes, retries, timeout, retention,
// unique key and metadata.
func TestPreparedMatchesEnqueue(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(nil)
	c := hopper.NewClient(st, &hopper.ClientConfig{MaxRetries: 7})
	ins := hopper.NewInspector(st)
	cases := []struct {
		name string
		opts *hopper.EnqueueOpts
	}{
		{"defaults", nil},
		{"options", &hopper.EnqueueOpts{Queue: "q2", MaxRetries: hopper.NoRetry, Retention: time.Hour, Meta: map[string]string{"k": "v"}, Priority: -2}},
		{"unique", &hopper.EnqueueOpts{Unique: &hopper.UniqueOpts{For: time.Minute}}},
		{"group", &hopper.EnqueueOpts{Group: "tenant-7"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := prepArgs{N: i}
			plain, err := hopper.Enqueue(ctx, c, args, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ins.GetJob(ctx, plain.Queue, plain.ID)
			if err != nil {
				t.Fatal(err)
			}
			// Free the unique key the first job holds.
			if _, err := ins.DeleteJobs(ctx, want.Queue, want.State, []string{want.ID}); err != nil {
				t.Fatal(err)
			}
			p, err := hopper.Prepare(c, args, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			p = roundTrip(t, p)
			infos, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{p})
			if err != nil {
				t.Fatal(err)
			}
			if infos[0].ID != p.ID() || infos[0].Duplicate || infos[0].State != hopper.StateReady {
				t.Fatalf("EnqueuePrepared = %+v, want ready job %q", infos[0], p.ID())
			}
			got, err := ins.GetJob(ctx, p.Queue(), p.ID())
			if err != nil {
				t.Fatal(err)
			}
			if got.Queue != want.Queue || got.Kind != want.Kind || string(got.Args) != string(want.Args) ||
				got.MaxRetries != want.MaxRetries || got.Timeout != want.Timeout || got.Retention != want.Retention ||
				got.UniqueKey != want.UniqueKey || !maps.Equal(got.Meta, want.Meta) || got.Priority != want.Priority || got.Group != want.Group {
				t.Errorf("prepared job stored as\n%+v\nEnqueue stored\n%+v", got, want)
			}
		})
	}
}

// roundTrip marshals p and unmarshals it into a new PreparedJob.
func roundTrip(t *testing.T, p *hopper.PreparedJob) *hopper.PreparedJob {
	t.Helper()
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q hopper.PreparedJob
	if err := q.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return &q
}

// TestPreparedDelayIsFixed turns a Delay into a RunAt measured from
// Prepare, which survives marshalling (rounded up to the millisecond) and
// is how the store schedules the job.
func TestPreparedDelayIsFixed(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(nil)
	c := hopper.NewClient(st, nil)
	before := time.Now()
	p, err := hopper.Prepare(c, prepArgs{}, &hopper.EnqueueOpts{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	if p.RunAt().Before(before.Add(time.Hour)) || p.RunAt().After(after.Add(time.Hour)) {
		t.Fatalf("RunAt %v not an hour after Prepare (%v..%v)", p.RunAt(), before, after)
	}
	q := roundTrip(t, p)
	if d := q.RunAt().Sub(p.RunAt()); d < 0 || d >= time.Millisecond {
		t.Fatalf("RunAt after a round trip %v, before %v", q.RunAt(), p.RunAt())
	}
	infos, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{q})
	if err != nil {
		t.Fatal(err)
	}
	if infos[0].State != hopper.StatePending {
		t.Fatalf("state %q, want pending", infos[0].State)
	}
	rec, err := hopper.NewInspector(st).GetJob(ctx, q.Queue(), q.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !rec.RunAt.Equal(q.RunAt()) {
		t.Fatalf("stored RunAt %v, want %v", rec.RunAt, q.RunAt())
	}
	// An explicit RunAt wins over Delay, as with Enqueue.
	at := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	p2, err := hopper.Prepare(c, prepArgs{}, &hopper.EnqueueOpts{Delay: time.Hour, RunAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if !p2.RunAt().Equal(at) {
		t.Fatalf("RunAt %v, want %v", p2.RunAt(), at)
	}
}

// TestPreparedIDIsFixed enqueues a prepared job twice: one job, the second
// a duplicate; after the job finished it is still a duplicate while it is
// kept for its Retention.
func TestPreparedIDIsFixed(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(nil)
	c := hopper.NewClient(st, nil)
	ps, err := hopper.PrepareMany(c, []prepArgs{{N: 1}, {N: 2}}, &hopper.EnqueueOpts{Queue: "fixed", Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].ID() == ps[1].ID() {
		t.Fatal("PrepareMany gave two jobs one ID")
	}
	for round := range 2 {
		infos, err := hopper.EnqueuePrepared(ctx, c, ps)
		if err != nil {
			t.Fatal(err)
		}
		for i, info := range infos {
			if info.ID != ps[i].ID() || info.Duplicate != (round == 1) {
				t.Fatalf("round %d job %d: %+v", round, i, info)
			}
		}
	}
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Queues: map[string]int{"fixed": 1}})
	hopper.Handle(w, func(context.Context, *hopper.Job[prepArgs]) error { return nil })
	if n, err := w.Drain(ctx); err != nil || n != 2 {
		t.Fatalf("Drain = %d, %v; want 2 jobs", n, err)
	}
	infos, err := hopper.EnqueuePrepared(ctx, c, ps)
	if err != nil {
		t.Fatal(err)
	}
	if !infos[0].Duplicate || !infos[1].Duplicate {
		t.Fatalf("after the jobs finished, kept for their retention: %+v %+v, want duplicates", infos[0], infos[1])
	}
}

// TestPreparedRefusals checks the errors: bad options at Prepare, an ID for
// many jobs, invalid and foreign bytes, a newer format version, and an
// invalid job in a batch, which stores nothing.
func TestPreparedRefusals(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(nil)
	c := hopper.NewClient(st, &hopper.ClientConfig{MaxArgsBytes: 64})
	if _, err := hopper.Prepare(c, prepArgs{}, &hopper.EnqueueOpts{Queue: "no spaces"}); !errors.Is(err, hopper.ErrInvalidQueue) {
		t.Errorf("bad queue: %v", err)
	}
	if _, err := hopper.Prepare(c, prepArgs{}, &hopper.EnqueueOpts{MaxRetries: -2}); !errors.Is(err, hopper.ErrInvalidJob) {
		t.Errorf("bad retries: %v", err)
	}
	if _, err := hopper.Prepare(c, bigArgs{S: string(make([]byte, 100))}, nil); !errors.Is(err, hopper.ErrArgsTooLarge) {
		t.Errorf("large args: %v", err)
	}
	if _, err := hopper.PrepareMany(c, []prepArgs{{}, {}}, &hopper.EnqueueOpts{ID: "x"}); !errors.Is(err, hopper.ErrInvalidJob) {
		t.Errorf("one ID for two jobs: %v", err)
	}
	var p hopper.PreparedJob
	for _, b := range [][]byte{nil, {0}, {1}, {1, 0xc1}, {1, 0x80}, {0, 0x80}, {32, 0x80}, {2}, {2, 0x80, 0x80}, []byte("garbage")} {
		if err := p.UnmarshalBinary(b); !errors.Is(err, hopper.ErrInvalidJob) {
			t.Errorf("UnmarshalBinary(%q) = %v, want ErrInvalidJob", b, err)
		}
	}
	if err := p.UnmarshalBinary([]byte{2, 0x80}); !errors.Is(err, hopper.ErrNotSupported) {
		t.Errorf("newer version: %v, want ErrNotSupported", err)
	}

	good, err := hopper.Prepare(c, prepArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := roundTrip(t, good)
	if err := bad.UnmarshalBinary(mustMarshalForeign(t)); err != nil {
		t.Fatal(err)
	}
	if err := bad.Validate(); !errors.Is(err, hopper.ErrInvalidQueue) {
		t.Fatalf("foreign job with a bad queue: Validate = %v", err)
	}
	if _, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{good, bad}); !errors.Is(err, hopper.ErrInvalidQueue) {
		t.Fatalf("EnqueuePrepared with an invalid job: %v", err)
	}
	if _, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{good, nil}); !errors.Is(err, hopper.ErrInvalidJob) {
		t.Fatalf("EnqueuePrepared with a nil job: %v", err)
	}
	if _, err := hopper.NewInspector(st).GetJob(ctx, good.Queue(), good.ID()); !errors.Is(err, hopper.ErrJobNotFound) {
		t.Fatalf("a refused batch stored its valid job: %v", err)
	}
}

type bigArgs struct{ S string }

func (bigArgs) Kind() string { return "big" }

// mustMarshalForeign returns version 1 bytes of a job that no Prepare would
// make (a queue with a space), as other software writing rows might.
func mustMarshalForeign(t *testing.T) []byte {
	t.Helper()
	// {"id": "x", "q": "a b", "k": "k", "a": <bin 0>}
	return []byte{1, 0x84,
		0xa2, 'i', 'd', 0xa1, 'x',
		0xa1, 'q', 0xa3, 'a', ' ', 'b',
		0xa1, 'k', 0xa1, 'k',
		0xa1, 'a', 0xc4, 0x00}
}

func ExamplePreparedJob() {
	ctx := context.Background()
	client := hopper.NewClient(memstore.New(nil), nil)

	// Prepare now: the ID is known before anything reaches the store.
	p, err := hopper.Prepare(client, SendEmail{To: "a@example.com"}, &hopper.EnqueueOpts{ID: "welcome-a"})
	if err != nil {
		panic(err)
	}
	row, _ := p.MarshalBinary() // keep it: in a table, a file...

	// Later, maybe in another process: store it. Twice is harmless.
	var q hopper.PreparedJob
	if err := q.UnmarshalBinary(row); err != nil {
		panic(err)
	}
	for range 2 {
		infos, err := hopper.EnqueuePrepared(ctx, client, []*hopper.PreparedJob{&q})
		if err != nil {
			panic(err)
		}
		fmt.Println(infos[0].ID, infos[0].State, infos[0].Duplicate)
	}
	// Output:
	// welcome-a ready false
	// welcome-a  true
}

// TestPreparedReplace: Replace applies to a prepared job after marshalling
// as it does to Enqueue: the waiting job that holds the ID takes the new
// args, and the result says Replaced.
func TestPreparedReplace(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(nil)
	c := hopper.NewClient(st, nil)
	first, err := hopper.Enqueue(ctx, c, prepArgs{N: 1}, &hopper.EnqueueOpts{ID: "debounced", Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	p, err := hopper.Prepare(c, prepArgs{N: 2}, &hopper.EnqueueOpts{ID: "debounced", Replace: hopper.ReplaceArgs})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{roundTrip(t, p)})
	if err != nil {
		t.Fatal(err)
	}
	if !infos[0].Duplicate || !infos[0].Replaced || infos[0].ID != first.ID {
		t.Fatalf("EnqueuePrepared = %+v, want the waiting job %q replaced", infos[0], first.ID)
	}
	rec, err := hopper.NewInspector(st).GetJob(ctx, first.Queue, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got prepArgs
	if err := msgpack.Unmarshal(rec.Args, &got); err != nil || got.N != 2 {
		t.Fatalf("stored args %+v (%v), want N 2", got, err)
	}
}
