package hopper_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

func TestEnqueueStoresReadyOrPending(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	now, err := hopper.Enqueue(ctx, c, Echo{N: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	later, err := hopper.Enqueue(ctx, c, Echo{N: 2}, &hopper.EnqueueOpts{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if now.State != hopper.StateReady || now.Queue != hopper.DefaultQueue || now.Kind != "echo" || now.Duplicate {
		t.Errorf("immediate job: got %+v, want ready in %q of kind echo", now, hopper.DefaultQueue)
	}
	if later.State != hopper.StatePending {
		t.Errorf("delayed job: state %q, want pending", later.State)
	}
	rec := getJob(t, s, hopper.DefaultQueue, later.ID)
	if rec == nil || rec.MaxRetries != hopper.DefaultMaxRetries {
		t.Fatalf("delayed job record %+v, want MaxRetries %d", rec, hopper.DefaultMaxRetries)
	}
	if d := rec.RunAt.Sub(rec.EnqueuedAt); d < 59*time.Minute || d > 61*time.Minute {
		t.Errorf("RunAt - EnqueuedAt = %v, want about an hour", d)
	}
	if len(now.ID) != 20 || now.ID == later.ID {
		t.Errorf("generated IDs %q and %q: want two distinct 20-character IDs", now.ID, later.ID)
	}
}

func TestEnqueueIDIsIdempotent(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	var wg sync.WaitGroup
	infos := make([]*hopper.JobInfo, 20)
	for i := range infos {
		wg.Go(func() {
			info, err := hopper.Enqueue(ctx, c, Echo{N: i}, &hopper.EnqueueOpts{ID: "order-42"})
			if err != nil {
				t.Error(err)
			}
			infos[i] = info
		})
	}
	wg.Wait()
	added := 0
	for _, in := range infos {
		if in == nil {
			continue
		}
		if in.ID != "order-42" {
			t.Errorf("result ID %q, want order-42", in.ID)
		}
		if !in.Duplicate {
			added++
		}
	}
	st, err := hopper.NewInspector(s).GetQueueStats(ctx, hopper.DefaultQueue)
	if err != nil {
		t.Fatal(err)
	}
	if added != 1 || st.Counts.Total() != 1 {
		t.Errorf("20 enqueues of one ID: %d reported added, %d jobs stored; want 1 and 1", added, st.Counts.Total())
	}
}

func TestEnqueueRejectsBadInput(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, &hopper.ClientConfig{MaxArgsBytes: 100})
	cases := []struct {
		name string
		args hopper.Args
		opts *hopper.EnqueueOpts
		want error
	}{
		{"empty queue name is default, braces are not", Echo{}, &hopper.EnqueueOpts{Queue: "{x}"}, hopper.ErrInvalidQueue},
		{"colon in queue", Echo{}, &hopper.EnqueueOpts{Queue: "a:b"}, hopper.ErrInvalidQueue},
		{"queue too long", Echo{}, &hopper.EnqueueOpts{Queue: strings.Repeat("q", 65)}, hopper.ErrInvalidQueue},
		{"ID with space", Echo{}, &hopper.EnqueueOpts{ID: "a b"}, hopper.ErrInvalidJob},
		{"negative retries other than NoRetry", Echo{}, &hopper.EnqueueOpts{MaxRetries: -2}, hopper.ErrInvalidJob},
		{"negative timeout", Echo{}, &hopper.EnqueueOpts{Timeout: -time.Second}, hopper.ErrInvalidJob},
		{"args over the limit", Echo{Msg: strings.Repeat("x", 200)}, nil, hopper.ErrArgsTooLarge},
		{"empty kind", emptyKind{}, nil, hopper.ErrInvalidJob},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := hopper.Enqueue(ctx, c, tc.args, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Enqueue: error %v, want %v", err, tc.want)
			}
		})
	}
	qs, err := s.ListQueues(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if st, _ := hopper.NewInspector(s).GetQueueStats(ctx, q); st.Counts.Total() != 0 {
			t.Errorf("queue %q holds %d jobs after only rejected enqueues", q, st.Counts.Total())
		}
	}
}

type emptyKind struct{}

func (emptyKind) Kind() string { return "" }

func TestEnqueueManyIsOneBatch(t *testing.T) {
	ctx := t.Context()
	s := &countingStore{Store: newStore()}
	c := hopper.NewClient(s, nil)
	args := make([]Echo, 250)
	for i := range args {
		args[i] = Echo{N: i}
	}
	infos, err := hopper.EnqueueMany(ctx, c, args, &hopper.EnqueueOpts{Queue: "batch"})
	if err != nil {
		t.Fatal(err)
	}
	if s.calls != 1 {
		t.Errorf("EnqueueMany of 250 jobs made %d st calls, want 1", s.calls)
	}
	if len(infos) != 250 || infos[0].Queue != "batch" || infos[249].State != hopper.StateReady {
		t.Fatalf("got %d infos, first %+v", len(infos), infos[0])
	}
	if _, err := hopper.EnqueueMany(ctx, c, args[:2], &hopper.EnqueueOpts{ID: "same"}); !errors.Is(err, hopper.ErrInvalidJob) {
		t.Errorf("EnqueueMany with one ID for two jobs: error %v, want ErrInvalidJob", err)
	}
	bad := []Echo{{N: 1}, {Msg: strings.Repeat("x", 2<<20)}}
	if _, err := hopper.EnqueueMany(ctx, c, bad, &hopper.EnqueueOpts{Queue: "bad"}); !errors.Is(err, hopper.ErrArgsTooLarge) {
		t.Errorf("EnqueueMany with one oversized job: error %v, want ErrArgsTooLarge", err)
	}
	if st, _ := hopper.NewInspector(s).GetQueueStats(ctx, "bad"); st.Counts.Total() != 0 {
		t.Errorf("a rejected batch stored %d jobs, want none", st.Counts.Total())
	}
}

// countingStore counts Enqueue calls.
type countingStore struct {
	hopper.Store
	calls int
}

func (s *countingStore) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	s.calls++
	return s.Store.Enqueue(ctx, jobs)
}

// Report has per-type default options.
type Report struct{ Month string }

func (Report) Kind() string { return "report" }
func (Report) EnqueueOpts() hopper.EnqueueOpts {
	return hopper.EnqueueOpts{Queue: "reports", MaxRetries: 3, Timeout: time.Minute}
}

func TestArgsWithOptsAreDefaults(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	info, err := hopper.Enqueue(ctx, c, Report{Month: "may"}, &hopper.EnqueueOpts{MaxRetries: 7})
	if err != nil {
		t.Fatal(err)
	}
	rec := getJob(t, s, "reports", info.ID)
	if rec == nil {
		t.Fatalf("job not in the args' default queue %q", "reports")
	}
	if rec.MaxRetries != 7 || rec.Timeout != time.Minute {
		t.Errorf("MaxRetries %d Timeout %v, want 7 (from the call) and 1m (from the type)", rec.MaxRetries, rec.Timeout)
	}
	info, err = hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry})
	if err != nil {
		t.Fatal(err)
	}
	if rec := getJob(t, s, hopper.DefaultQueue, info.ID); rec.MaxRetries != 0 {
		t.Errorf("NoRetry stored MaxRetries %d, want 0", rec.MaxRetries)
	}
}

// Urgent's jobs run ahead by default; Tenanted's go to a group.
type (
	Urgent   struct{ N int }
	Tenanted struct{ N int }
)

func (Urgent) Kind() string                    { return "urgent" }
func (Urgent) EnqueueOpts() hopper.EnqueueOpts { return hopper.EnqueueOpts{Priority: 2} }
func (Tenanted) Kind() string                  { return "tenanted" }
func (Tenanted) EnqueueOpts() hopper.EnqueueOpts {
	return hopper.EnqueueOpts{Group: "shared"}
}

// TestCallsGroupOverridesTypesPriority: a Group given to Enqueue wins over
// the args' default Priority (a grouped job has no priority), a Priority
// over their default Group, for jobs and workflow tasks; both given in
// one call are still refused. A type's default Priority made every
// grouped enqueue of it fail, naming a priority the caller never set.
func TestCallsGroupOverridesTypesPriority(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	info, err := hopper.Enqueue(ctx, c, Urgent{1}, &hopper.EnqueueOpts{Group: "tenant-7"})
	if err != nil {
		t.Fatalf("Enqueue of a type with a default Priority into a group: %v", err)
	}
	if rec := getJob(t, s, hopper.DefaultQueue, info.ID); rec.Group != "tenant-7" || rec.Priority != 0 {
		t.Errorf("job: Group %q Priority %d, want tenant-7 and 0", rec.Group, rec.Priority)
	}
	info, err = hopper.Enqueue(ctx, c, Tenanted{1}, &hopper.EnqueueOpts{Priority: 3})
	if err != nil {
		t.Fatalf("Enqueue of a type with a default Group at a priority: %v", err)
	}
	if rec := getJob(t, s, hopper.DefaultQueue, info.ID); rec.Group != "" || rec.Priority != 3 {
		t.Errorf("job: Group %q Priority %d, want none and 3", rec.Group, rec.Priority)
	}
	if info, err = hopper.Enqueue(ctx, c, Urgent{2}, nil); err != nil || getJob(t, s, hopper.DefaultQueue, info.ID).Priority != 2 {
		t.Errorf("Enqueue with the type's defaults: %v, want Priority 2", err)
	}
	if _, err := hopper.Enqueue(ctx, c, Urgent{3}, &hopper.EnqueueOpts{Group: "g", Priority: 1}); !errors.Is(err, hopper.ErrInvalidJob) {
		t.Errorf("Enqueue with both a Group and a Priority: %v, want ErrInvalidJob", err)
	}
	wf := hopper.NewWorkflow("urgent", nil)
	hopper.AddTask(wf, "t1", Urgent{4}, &hopper.TaskOpts{Group: "g"})
	if _, err := hopper.EnqueueWorkflow(ctx, c, wf); err != nil {
		t.Fatalf("a task of a type with a default Priority into a group: %v", err)
	}
}

func TestUniqueByArgs(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	u := &hopper.EnqueueOpts{Unique: &hopper.UniqueOpts{}}
	first, err := hopper.Enqueue(ctx, c, Echo{N: 1}, u)
	if err != nil {
		t.Fatal(err)
	}
	dup, err := hopper.Enqueue(ctx, c, Echo{N: 1}, u)
	if err != nil {
		t.Fatal(err)
	}
	other, err := hopper.Enqueue(ctx, c, Echo{N: 2}, u)
	if err != nil {
		t.Fatal(err)
	}
	if first.Duplicate || !dup.Duplicate || dup.ID != first.ID || other.Duplicate {
		t.Errorf("first %+v, same args %+v, other args %+v: want only the second a duplicate of the first", first, dup, other)
	}
}

func TestClientMiddlewareSeesEveryBatch(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	var order []string
	mw := func(name string) hopper.EnqueueMiddleware {
		return func(next hopper.EnqueueFunc) hopper.EnqueueFunc {
			return func(ctx context.Context, jobs []*hopper.PreparedJob) ([]*hopper.JobInfo, error) {
				order = append(order, name)
				for _, j := range jobs {
					j.Meta()["seen-by"] += name
				}
				return next(ctx, jobs)
			}
		}
	}
	c.Use(mw("a"), mw("b"))
	infos, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "a,b" {
		t.Errorf("middleware ran as %v, want a,b once each for the batch", order)
	}
	if rec := getJob(t, s, hopper.DefaultQueue, infos[1].ID); rec.Meta["seen-by"] != "ab" {
		t.Errorf("stored Meta %v, want seen-by=ab", rec.Meta)
	}
}

// TestClientMiddlewareSeesTheJob: enqueue middleware reads a job as it
// will be stored (its ID, queue, kind, args and a Delay not yet fixed into
// RunAt), cannot marshal a job whose due time is not fixed, and its Meta
// changes reach the store but not the caller's PreparedJob.
func TestClientMiddlewareSeesTheJob(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	var seen []*hopper.PreparedJob
	var marshalErr error
	c.Use(func(next hopper.EnqueueFunc) hopper.EnqueueFunc {
		return func(ctx context.Context, jobs []*hopper.PreparedJob) ([]*hopper.JobInfo, error) {
			for _, j := range jobs {
				seen = append(seen, j)
				if j.Delay() > 0 {
					_, marshalErr = j.MarshalBinary()
				}
				j.Meta()["mw"] = "yes"
			}
			return next(ctx, jobs)
		}
	})

	info, err := hopper.Enqueue(ctx, c, Echo{N: 7}, &hopper.EnqueueOpts{Queue: "mw", Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	j := seen[0]
	if j.ID() != info.ID || j.Queue() != "mw" || j.Kind() != "echo" || j.Delay() != time.Hour || !j.RunAt().IsZero() || len(j.Args()) == 0 {
		t.Errorf("middleware saw ID %q queue %q kind %q delay %v runAt %v args %d bytes; want %q, mw, echo, 1h, zero, the args",
			j.ID(), j.Queue(), j.Kind(), j.Delay(), j.RunAt(), len(j.Args()), info.ID)
	}
	if !errors.Is(marshalErr, hopper.ErrInvalidJob) {
		t.Errorf("MarshalBinary of a job with a Delay: %v, want ErrInvalidJob", marshalErr)
	}
	if rec := getJob(t, s, "mw", info.ID); rec.Meta["mw"] != "yes" || rec.State != hopper.StatePending {
		t.Errorf("stored %s with Meta %v, want pending with the middleware's mw=yes", rec.State, rec.Meta)
	}

	p, err := hopper.Prepare(c, Echo{N: 8}, &hopper.EnqueueOpts{Queue: "mw", Meta: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{p})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Meta(); len(got) != 1 || got["k"] != "v" {
		t.Errorf("the caller's prepared job has Meta %v after EnqueuePrepared, want it unchanged (k=v)", got)
	}
	if rec := getJob(t, s, "mw", infos[0].ID); rec.Meta["mw"] != "yes" || rec.Meta["k"] != "v" {
		t.Errorf("stored Meta %v, want k=v and the middleware's mw=yes", rec.Meta)
	}
}
