package hopper_test

// The bad-input catalogue (docs/bad-input.md): each case there names the
// test here that shows its behaviour. Store-backed cases run on both
// stores.

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// Bad carries the args of the bad-input jobs: every shape msgpack v5
// allocates for by a claimed length.
type Bad struct {
	Name  string            `msgpack:"name"`
	List  []int64           `msgpack:"list"`
	Any   any               `msgpack:"any"`
	Tags  map[string]string `msgpack:"tags"`
	Bytes []byte            `msgpack:"bytes"`
}

func (Bad) Kind() string { return "bad" }

// BadPanic always panics; BadStuck never returns and ignores its context.
type BadPanic struct{}

func (BadPanic) Kind() string { return "panicky" }

type BadStuck struct{}

func (BadStuck) Kind() string { return "stuck" }

// BadDeep nests itself.
type BadDeep struct {
	Next *BadDeep `msgpack:"n"`
}

func (BadDeep) Kind() string { return "deep" }

// BadUnencodable cannot be encoded by msgpack.
type BadUnencodable struct{ C chan int }

func (BadUnencodable) Kind() string { return "unencodable" }

// lastError is the text of a job's latest recorded failure.
func lastError(rec *hopper.JobRecord) string {
	if len(rec.Errors) == 0 {
		return ""
	}
	return rec.Errors[len(rec.Errors)-1].Error
}

// rawJob is a job stored with the given args bytes, as another producer or
// a corrupted value would store it.
func rawJob(id, kind string, args []byte, maxRetries int) *store.NewJob {
	return &store.NewJob{ID: id, Queue: "bad", Kind: kind, Args: args, JobSpec: store.JobSpec{MaxRetries: maxRetries}}
}

// TestBadInputJobs stores jobs a worker cannot or should not complete, runs
// one worker over all of them, and checks where each ends up and why; a
// canary enqueued last shows the pool still works afterwards.
func TestBadInputJobs(t *testing.T) {
	unicode := Bad{
		Name: "héllo wörld 世界 🎉 \u200d\u202e right-to-left \x00 nul, invalid \xff\xfe utf-8",
		Tags: map[string]string{"ключ": "значение", "🔑": "\U0010FFFF"},
		Any:  []any{"é", map[string]any{"ü": "ñ"}},
	}
	dupKey := []byte{0x82, 0xa3, 'a', 'n', 'y', 0x30, 0xa3, 'a', 'n', 'y', 0x30} // {"any":48,"any":48}
	deep := append(bytes.Repeat([]byte{0x81, 0xa1, 'n'}, 100_000), 0xc0)
	cases := []struct {
		name  string
		job   *store.NewJob
		state hopper.JobState // final state; "" means acked and gone
		error string          // substring of the last recorded error
		tries int             // attempts made
	}{
		{"args not msgpack", rawJob("notmsgpack", "bad", []byte("{\"json\": true}"), 5), hopper.StateGarbage, "cannot decode args", 1},
		{"args of the wrong type", rawJob("wrongtype", "bad", mustEncode(t, []string{"a", "b"}), 5), hopper.StateGarbage, "cannot decode args", 1},
		{"args empty", rawJob("empty", "bad", nil, 5), hopper.StateGarbage, "cannot decode args", 1},
		{"args truncated", rawJob("truncated", "bad", mustEncode(t, unicode)[:20], 5), hopper.StateGarbage, "truncated", 1},
		{"array length bomb", rawJob("bomb-array", "bad", []byte{0x81, 0xa4, 'l', 'i', 's', 't', 0xdd, 0xff, 0xff, 0xff, 0xff}, 5), hopper.StateGarbage, "claims more than the input holds", 1},
		{"interface length bomb", rawJob("bomb-any", "bad", []byte{0x81, 0xa3, 'a', 'n', 'y', 0xdd, 0xff, 0xff, 0xff, 0xff}, 5), hopper.StateGarbage, "claims more than the input holds", 1},
		{"map length bomb", rawJob("bomb-map", "bad", []byte{0x81, 0xa4, 't', 'a', 'g', 's', 0xdf, 0xff, 0xff, 0xff, 0xff}, 5), hopper.StateGarbage, "claims more than the input holds", 1},
		{"string length bomb", rawJob("bomb-str", "bad", []byte{0x81, 0xa4, 'n', 'a', 'm', 'e', 0xdb, 0xff, 0xff, 0xff, 0xff}, 5), hopper.StateGarbage, "claims more than the input holds", 1},
		{"nesting bomb", rawJob("deep", "deep", deep, 5), hopper.StateGarbage, "nested deeper than 64", 1},
		{"repeated key into an interface", rawJob("dupkey", "bad", dupKey, 5), hopper.StateGarbage, "cannot decode args", 1},
		{"unknown kind", rawJob("unknown", "nobody-handles-this", mustEncode(t, Bad{}), 5), hopper.StateGarbage, `no handler for kind "nobody-handles-this"`, 1},
		{"handler always panics", rawJob("panics", "panicky", mustEncode(t, BadPanic{}), 2), hopper.StateGarbage, "panic: always", 3},
		{"handler ignores its context", &store.NewJob{ID: "stuck", Queue: "bad", Kind: "stuck", Args: mustEncode(t, BadStuck{}), JobSpec: store.JobSpec{Timeout: 50 * time.Millisecond}}, hopper.StateGarbage, "abandoned", 1},
		{"unicode args", rawJob("unicode", "bad", mustEncode(t, unicode), 0), "", "", 1},
	}
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := context.Background()
		st := open()
		release := make(chan struct{})
		t.Cleanup(func() { close(release) }) // lets the stuck handler's goroutine end
		cfg := testConfig("bad")
		cfg.AbandonAfter = 50 * time.Millisecond
		w := hopper.NewWorker(st, cfg)
		var mu sync.Mutex
		got := map[string]Bad{}
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Bad]) error {
			mu.Lock()
			defer mu.Unlock()
			got[job.ID] = job.Args
			return nil
		})
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[BadDeep]) error { return nil })
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[BadPanic]) error { panic("always") })
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[BadStuck]) error {
			<-release
			return nil
		})
		var jobs []*store.NewJob
		for _, c := range cases {
			jobs = append(jobs, c.job)
		}
		if _, err := st.Enqueue(ctx, jobs); err != nil {
			t.Fatalf("Enqueue: %v", err)
		}
		startWorker(t, w)
		final := func(c int) bool {
			rec := getJob(t, st, "bad", cases[c].job.ID)
			return (cases[c].state == "" && rec == nil) || (rec != nil && rec.State == cases[c].state)
		}
		for i := range cases {
			testutil.EventuallyTrue(t, 20*time.Second, cases[i].name+" to end in "+string(cases[i].state), func() bool { return final(i) })
		}
		// The pool still runs jobs after panics and an abandoned handler.
		canary := rawJob("canary", "bad", mustEncode(t, Bad{Name: "canary"}), 0)
		if _, err := st.Enqueue(ctx, []*store.NewJob{canary}); err != nil {
			t.Fatalf("Enqueue canary: %v", err)
		}
		testutil.EventuallyTrue(t, 10*time.Second, "the canary job to be acked", func() bool { return getJob(t, st, "bad", "canary") == nil })

		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				rec := getJob(t, st, "bad", c.job.ID)
				if c.state == "" {
					if rec != nil {
						t.Fatalf("job is in %s, want acked and gone", rec.State)
					}
					return
				}
				if rec.Attempt != c.tries {
					t.Errorf("%d attempts, want %d", rec.Attempt, c.tries)
				}
				if e := lastError(rec); !strings.Contains(e, c.error) {
					t.Errorf("last error %q, want it to contain %q", e, c.error)
				}
			})
		}
		t.Run("unicode args round-trip exactly", func(t *testing.T) {
			mu.Lock()
			defer mu.Unlock()
			a := got["unicode"]
			if a.Name != unicode.Name || !mapsEqual(a.Tags, unicode.Tags) || !anyEqual(t, a.Any, unicode.Any) {
				t.Errorf("handler got %+v, want %+v", a, unicode)
			}
		})
		t.Run("panic stack recorded", func(t *testing.T) {
			rec := getJob(t, st, "bad", "panics")
			if len(rec.Errors) == 0 || !strings.Contains(rec.Errors[0].Stack, "goroutine") {
				t.Errorf("errors %+v, want a goroutine stack with the panic", rec.Errors)
			}
		})
	})
}

func mustEncode(t testing.TB, v any) []byte {
	t.Helper()
	b, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// anyEqual compares interface values by their encoding.
func anyEqual(t *testing.T, a, b any) bool {
	return bytes.Equal(mustEncode(t, a), mustEncode(t, b))
}

// TestBadInputEnqueue: bad args and options fail at enqueue with a typed
// error and store nothing.
func TestBadInputEnqueue(t *testing.T) {
	deep := &BadDeep{}
	for range hopper.MaxArgsDepth {
		deep = &BadDeep{Next: deep}
	}
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := context.Background()
		st := open()
		client := hopper.NewClient(st, &hopper.ClientConfig{MaxArgsBytes: 1000, Queue: "enq"})
		big := Bad{Name: strings.Repeat("x", 1000)}
		cases := []struct {
			name string
			do   func() error
			want error
			text string
		}{
			{"args over MaxArgsBytes", func() error { _, err := hopper.Enqueue(ctx, client, big, nil); return err },
				hopper.ErrArgsTooLarge, "limit 1000 (ClientConfig.MaxArgsBytes)"},
			{"args nested deeper than MaxArgsDepth", func() error { _, err := hopper.Enqueue(ctx, client, *deep, nil); return err },
				hopper.ErrInvalidJob, "nested deeper than 64"},
			{"args msgpack cannot encode", func() error {
				_, err := hopper.Enqueue(ctx, client, BadUnencodable{C: make(chan int)}, nil)
				return err
			},
				hopper.ErrInvalidJob, "cannot encode args of type hopper_test.BadUnencodable: msgpack: Encode(unsupported chan int)"},
			{"negative timeout", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Timeout: -time.Second})
				return err
			}, hopper.ErrInvalidJob, "Timeout -1s is negative"},
			{"negative unique duration", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Unique: &hopper.UniqueOpts{For: -time.Second}})
				return err
			}, hopper.ErrInvalidJob, "Unique.For -1s is negative"},
			{"group with a space", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Group: "tenant 1"})
				return err
			}, hopper.ErrInvalidJob, `Group "tenant 1" has " " at byte 6`},
			{"group with a priority", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Group: "t1", Priority: 1})
				return err
			}, hopper.ErrInvalidJob, "a grouped job has no priority"},
			{"negative group cap", func() error {
				return hopper.NewInspector(st).SetQueueConfig(ctx, "enq", hopper.QueueConfig{GroupMaxRunning: -1})
			}, hopper.ErrInvalidConfig, "GroupMaxRunning -1 is negative"},
			{"negative cap of one group", func() error {
				return hopper.NewInspector(st).SetGroupLimit(ctx, "enq", "t1", -1)
			}, hopper.ErrInvalidConfig, "group limit -1 is negative"},
			{"priority above MaxPriority", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Priority: hopper.MaxPriority + 1})
				return err
			}, hopper.ErrInvalidJob, "Priority 4 must be between -3 and 3"},
			{"retries below NoRetry", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{MaxRetries: -2})
				return err
			}, hopper.ErrInvalidJob, "use NoRetry (-1) for none"},
			{"retries above the limit", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{MaxRetries: store.MaxRetriesLimit + 1})
				return err
			}, hopper.ErrInvalidJob, "MaxRetries 10001 must be between 0 and 10000"},
			{"RunAt after the year 9999", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{RunAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
				return err
			}, hopper.ErrInvalidJob, "after the year 9999"},
			{"ID with a space", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{ID: "a b"})
				return err
			}, hopper.ErrInvalidJob, "allowed: printable ASCII, no spaces"},
			{"ID with unicode", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{ID: "jöb"})
				return err
			}, hopper.ErrInvalidJob, "allowed: printable ASCII, no spaces"},
			{"ID a dot", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{ID: "."})
				return err
			}, hopper.ErrInvalidJob, "a path's dot segment"},
			{"queue a dot", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Queue: "."})
				return err
			}, hopper.ErrInvalidQueue, "a path's dot segment"},
			{"queue two dots", func() error {
				_, err := hopper.Prepare(client, Bad{}, &hopper.EnqueueOpts{Queue: ".."})
				return err
			}, hopper.ErrInvalidQueue, "a path's dot segment"},
			{"ID two dots", func() error {
				_, err := hopper.Prepare(client, Bad{}, &hopper.EnqueueOpts{ID: ".."})
				return err
			}, hopper.ErrInvalidJob, "a path's dot segment"},
			{"Meta over MaxMetaBytes", func() error {
				_, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Meta: map[string]string{"trace": strings.Repeat("x", hopper.MaxMetaBytes)}})
				return err
			}, hopper.ErrInvalidJob, "at most 65536 (MaxMetaBytes)"},
			{"a task's Meta over MaxMetaBytes", func() error {
				wf := hopper.NewWorkflow("big meta", nil)
				hopper.AddTask(wf, "a", Bad{}, &hopper.TaskOpts{Meta: map[string]string{"k": strings.Repeat("x", hopper.MaxMetaBytes)}})
				_, err := hopper.EnqueueWorkflow(ctx, client, wf)
				return err
			}, hopper.ErrInvalidJob, "(MaxMetaBytes)"},
			{"workflow ID a dot", func() error {
				wf := hopper.NewWorkflow("dots", &hopper.WorkflowOpts{ID: "."})
				hopper.AddTask(wf, "a", Bad{}, nil)
				_, err := hopper.EnqueueWorkflow(ctx, client, wf)
				return err
			}, hopper.ErrInvalidWorkflow, "a path's dot segment"},
			{"workflow ID two dots", func() error {
				wf := hopper.NewWorkflow("dots", &hopper.WorkflowOpts{ID: ".."})
				hopper.AddTask(wf, "a", Bad{}, nil)
				_, err := hopper.EnqueueWorkflow(ctx, client, wf)
				return err
			}, hopper.ErrInvalidWorkflow, "a path's dot segment"},
			{"kind with a control character", func() error {
				_, err := st.Enqueue(ctx, []*store.NewJob{{ID: "k", Queue: "enq", Kind: "a\tb", Args: []byte{0xc0}}})
				return err
			}, hopper.ErrInvalidJob, "without control characters"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				err := c.do()
				if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.text) {
					t.Fatalf("got %v, want an error wrapping %v containing %q", err, c.want, c.text)
				}
			})
		}
		qs, err := hopper.NewInspector(st).GetQueueStats(ctx, "enq")
		if err != nil {
			t.Fatal(err)
		}
		if qs.Counts != (store.StateCounts{}) {
			t.Errorf("rejected jobs left %+v in the queue, want nothing", qs.Counts)
		}

		t.Run("args exactly at MaxArgsBytes are stored whole", func(t *testing.T) {
			n := 1000 - len(mustEncode(t, Bad{Name: ""}))
			for len(mustEncode(t, Bad{Name: strings.Repeat("y", n)})) > 1000 {
				n--
			}
			a := Bad{Name: strings.Repeat("y", n)}
			info, err := hopper.Enqueue(ctx, client, a, nil)
			if err != nil {
				t.Fatalf("Enqueue of %d bytes with a limit of 1000: %v", len(mustEncode(t, a)), err)
			}
			rec := getJob(t, st, "enq", info.ID)
			if !bytes.Equal(rec.Args, mustEncode(t, a)) {
				t.Errorf("stored %d bytes of args, want the %d encoded", len(rec.Args), len(mustEncode(t, a)))
			}
		})
		t.Run("unicode kind is accepted", func(t *testing.T) {
			if _, err := st.Enqueue(ctx, []*store.NewJob{{ID: "kind-u", Queue: "enq", Kind: "メール送信", Args: []byte{0xc0}}}); err != nil {
				t.Fatal(err)
			}
			if rec := getJob(t, st, "enq", "kind-u"); rec == nil || rec.Kind != "メール送信" {
				t.Errorf("stored %+v, want kind メール送信", rec)
			}
		})
	})
}

// TestBadInputQueueNames: names that are empty, too long, or have braces,
// colons, spaces, control characters or non-ASCII letters fail everywhere a
// queue is named, with ErrInvalidQueue (ErrInvalidConfig for a worker).
func TestBadInputQueueNames(t *testing.T) {
	bad := map[string]string{
		"empty":             "",
		"65 bytes":          strings.Repeat("q", store.MaxQueueNameLen+1),
		"braces":            "{jobs}",
		"colon":             "a:b",
		"space":             "a b",
		"newline":           "a\nb",
		"NUL":               "a\x00b",
		"unicode":           "écoles",
		"invalid utf-8":     "a\xffb",
		"slash (URL paths)": "a/b",
	}
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := context.Background()
		st := open()
		client := hopper.NewClient(st, nil)
		for name, q := range bad {
			t.Run(name, func(t *testing.T) {
				if err := store.ValidateQueue(q); !errors.Is(err, hopper.ErrInvalidQueue) {
					t.Errorf("ValidateQueue(%q) = %v, want ErrInvalidQueue", q, err)
				}
				if _, err := st.Enqueue(ctx, []*store.NewJob{{ID: "x", Queue: q, Kind: "bad", Args: []byte{0xc0}}}); !errors.Is(err, hopper.ErrInvalidQueue) {
					t.Errorf("Store.Enqueue into %q: %v, want ErrInvalidQueue", q, err)
				}
				if q != "" { // an empty EnqueueOpts.Queue means the client's default queue
					if _, err := hopper.Enqueue(ctx, client, Bad{}, &hopper.EnqueueOpts{Queue: q}); !errors.Is(err, hopper.ErrInvalidQueue) {
						t.Errorf("Enqueue into %q: %v, want ErrInvalidQueue", q, err)
					}
				}
				if _, err := hopper.NewInspector(st).GetJob(ctx, q, "x"); !errors.Is(err, hopper.ErrInvalidQueue) {
					t.Errorf("GetJob in %q: %v, want ErrInvalidQueue", q, err)
				}
				cfg := &hopper.WorkerConfig{Queues: map[string]int{q: 1}, Logger: testutil.Logger()}
				if err := panicOf(func() { hopper.NewWorker(st, cfg) }); !errors.Is(err, hopper.ErrInvalidConfig) || !errors.Is(err, hopper.ErrInvalidQueue) {
					t.Errorf("NewWorker on queue %q panicked with %v, want ErrInvalidConfig wrapping ErrInvalidQueue", q, err)
				}
			})
		}
		qs, err := st.ListQueues(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) != 0 {
			t.Errorf("queues %q exist after only invalid names were used", qs)
		}
	})
}

// TestBadInputTimes: negative, zero and absurd delays and run times, and
// zero and negative retries, are accepted with a defined meaning.
func TestBadInputTimes(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := context.Background()
		st := open()
		client := hopper.NewClient(st, &hopper.ClientConfig{Queue: "times"})
		enqueue := func(t *testing.T, o *hopper.EnqueueOpts) *hopper.JobRecord {
			t.Helper()
			info, err := hopper.Enqueue(ctx, client, Bad{}, o)
			if err != nil {
				t.Fatalf("Enqueue(%+v): %v", o, err)
			}
			return getJob(t, st, "times", info.ID)
		}
		start := time.Now()
		t.Run("negative delay runs now", func(t *testing.T) {
			if rec := enqueue(t, &hopper.EnqueueOpts{Delay: -time.Hour}); rec.State != hopper.StateReady {
				t.Errorf("state %s, want ready", rec.State)
			}
		})
		t.Run("minimum int64 delay runs now", func(t *testing.T) {
			if rec := enqueue(t, &hopper.EnqueueOpts{Delay: math.MinInt64}); rec.State != hopper.StateReady {
				t.Errorf("state %s, want ready", rec.State)
			}
		})
		t.Run("zero delay runs now", func(t *testing.T) {
			if rec := enqueue(t, &hopper.EnqueueOpts{}); rec.State != hopper.StateReady {
				t.Errorf("state %s, want ready", rec.State)
			}
		})
		t.Run("maximum delay waits 292 years", func(t *testing.T) {
			rec := enqueue(t, &hopper.EnqueueOpts{Delay: math.MaxInt64})
			if rec.State != hopper.StatePending || rec.RunAt.Before(start.Add(290*365*24*time.Hour)) {
				t.Errorf("state %s due %v, want pending about 292 years from now", rec.State, rec.RunAt)
			}
		})
		t.Run("RunAt in the distant past runs now", func(t *testing.T) {
			if rec := enqueue(t, &hopper.EnqueueOpts{RunAt: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}); rec.State != hopper.StateReady {
				t.Errorf("state %s, want ready", rec.State)
			}
		})
		t.Run("RunAt at the end of the year 9999 is kept exactly", func(t *testing.T) {
			at := time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
			rec := enqueue(t, &hopper.EnqueueOpts{RunAt: at})
			if rec.State != hopper.StatePending || !rec.RunAt.Equal(at) {
				t.Errorf("state %s due %v, want pending due %v", rec.State, rec.RunAt, at)
			}
		})
		t.Run("zero retries in options means the client default", func(t *testing.T) {
			if rec := enqueue(t, &hopper.EnqueueOpts{MaxRetries: 0}); rec.MaxRetries != hopper.DefaultMaxRetries {
				t.Errorf("MaxRetries %d, want %d", rec.MaxRetries, hopper.DefaultMaxRetries)
			}
		})
		t.Run("NoRetry means one attempt", func(t *testing.T) {
			if rec := enqueue(t, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry}); rec.MaxRetries != 0 {
				t.Errorf("MaxRetries %d, want 0", rec.MaxRetries)
			}
		})
		t.Run("NoRetry as the client's default means one attempt", func(t *testing.T) {
			c := hopper.NewClient(st, &hopper.ClientConfig{Queue: "times", MaxRetries: hopper.NoRetry})
			info, err := hopper.Enqueue(ctx, c, Other{S: "client NoRetry"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := hopper.NewInspector(st).GetJob(ctx, "times", info.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.MaxRetries != 0 {
				t.Errorf("MaxRetries %d, want 0", rec.MaxRetries)
			}
		})
		t.Run("the client's default below NoRetry is refused as the option is", func(t *testing.T) {
			err := hopper.ClientConfig{MaxRetries: -5}.Validate()
			if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "use NoRetry (-1) for none") {
				t.Errorf("ClientConfig{MaxRetries: -5}.Validate() = %v, want ErrInvalidConfig saying to use NoRetry", err)
			}
			if p := panicOf(func() { hopper.NewClient(st, &hopper.ClientConfig{MaxRetries: -2}) }); !errors.Is(p, hopper.ErrInvalidConfig) {
				t.Errorf("NewClient with MaxRetries -2 panicked with %v, want ErrInvalidConfig", p)
			}
		})
		t.Run("zero timeout means the worker's JobTimeout", func(t *testing.T) {
			info, err := hopper.Enqueue(ctx, client, Other{S: "timeout"}, &hopper.EnqueueOpts{Timeout: 0, Queue: "times0"})
			if err != nil {
				t.Fatal(err)
			}
			cfg := testConfig("times0")
			cfg.JobTimeout = time.Hour
			w := hopper.NewWorker(st, cfg)
			deadline := make(chan time.Duration, 1)
			hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Other]) error {
				d, ok := ctx.Deadline()
				if !ok {
					d = time.Time{}
				}
				deadline <- time.Until(d)
				return nil
			})
			startWorker(t, w)
			select {
			case left := <-deadline:
				if left < 50*time.Minute || left > time.Hour {
					t.Errorf("job %s ran with %v left before its deadline, want about JobTimeout (1h)", info.ID, left)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the job did not run within 10s")
			}
		})
	})
}

// TestBadInputFinish: acks of a job that does not exist, a second ack, and
// an ack with a stale token fail with typed errors and change nothing.
func TestBadInputFinish(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := context.Background()
		st := open()
		ack := func(id string, token uint64) error {
			t.Helper()
			errs, err := st.Finish(ctx, []store.AttemptEnd{{Queue: "fin", ID: id, Token: token, Outcome: hopper.OutcomeAck}})
			if err != nil {
				t.Fatalf("Finish: %v", err)
			}
			return errs[0]
		}
		if _, err := st.Enqueue(ctx, []*store.NewJob{{ID: "a", Queue: "fin", Kind: "bad", Args: []byte{0xc0}}, {ID: "b", Queue: "fin", Kind: "bad", Args: []byte{0xc0}}}); err != nil {
			t.Fatal(err)
		}
		res, err := st.Claim(ctx, store.ClaimOpts{Queue: "fin", Max: 2, Lease: time.Minute, WorkerID: "t"})
		if err != nil || len(res.Jobs) != 2 {
			t.Fatalf("Claim: %v, %d jobs", err, len(res.Jobs))
		}
		tokens := map[string]uint64{}
		for _, j := range res.Jobs {
			tokens[j.ID] = j.Token
		}
		t.Run("ack of an unknown job", func(t *testing.T) {
			if err := ack("no-such-job", 1); !errors.Is(err, hopper.ErrJobNotFound) {
				t.Errorf("got %v, want ErrJobNotFound", err)
			}
		})
		t.Run("ack with a stale token", func(t *testing.T) {
			if err := ack("b", tokens["b"]+1); !errors.Is(err, hopper.ErrLeaseLost) {
				t.Errorf("got %v, want ErrLeaseLost", err)
			}
			if rec := getJob(t, st, "fin", "b"); rec == nil || rec.State != hopper.StateUnack {
				t.Errorf("job b after a stale ack: %+v, want still unack", rec)
			}
		})
		t.Run("double ack", func(t *testing.T) {
			if err := ack("a", tokens["a"]); err != nil {
				t.Fatalf("first ack: %v", err)
			}
			if err := ack("a", tokens["a"]); !errors.Is(err, hopper.ErrJobNotFound) {
				t.Errorf("second ack: %v, want ErrJobNotFound (the first deleted the job)", err)
			}
		})
	})
}
