package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/hopperq/hopper/storetest"
)

// Tests of secure connections: mutual TLS, and an ACL user with only the
// rights the package documentation (doc.go, Access control) lists.

// aclRecipe returns the rules of the ACL SETUSER line documented in doc.go,
// so that these tests check the recipe users copy, and checks that the
// guide (docs/redis.md) shows the same line.
func aclRecipe(t *testing.T) []string {
	t.Helper()
	doc, readme := setUserLine(t, "doc.go"), setUserLine(t, "../docs/redis.md")
	if !slices.Equal(doc, readme) {
		t.Fatalf("the ACL SETUSER lines of doc.go and docs/redis.md differ:\n%v\n%v", doc, readme)
	}
	return doc
}

// doOnNodes sends one command to each server of addrs (the nodes of a
// Cluster: an ACL is per node) and returns the first error.
func doOnNodes(ctx context.Context, addrs []string, args ...any) error {
	var first error
	for _, addr := range addrs {
		node := redis.NewClient(&redis.Options{Addr: addr})
		if err := node.Do(ctx, args...).Err(); err != nil && first == nil {
			first = err
		}
		_ = node.Close()
	}
	return first
}

// clusterRights returns the rights doc.go tells a Cluster's user to add
// to the ACL SETUSER line: the "+..." words of its bullet "On a Redis
// Cluster add ...", up to the end of that bullet.
func clusterRights(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, bullet, ok := strings.Cut(string(src), "//   - On a Redis Cluster add ")
	if !ok {
		t.Fatal(`doc.go has no bullet "On a Redis Cluster add"`)
	}
	bullet, _, _ = strings.Cut(bullet, "//   - ")
	var rights []string
	for _, w := range strings.Fields(bullet) {
		if w = strings.TrimRight(w, ",.:;"); strings.HasPrefix(w, "+") {
			rights = append(rights, w)
		}
	}
	return rights
}

// setUserLine returns the rules of the first "ACL SETUSER hopper" line of
// file.
func setUserLine(t *testing.T, file string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(src)) {
		if _, rest, ok := strings.Cut(line, "ACL SETUSER hopper "); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf(`%s shows no "ACL SETUSER hopper" line`, file)
	return nil
}

// aclSetUser returns the ACL SETUSER command that creates (or replaces)
// user name with password "secret" and the documented rules for prefix,
// minus the rules listed in without, plus extra.
func aclSetUser(t *testing.T, name, prefix string, without, extra []string) []any {
	t.Helper()
	args := []any{"ACL", "SETUSER", name, "reset"}
	dropped := 0
	for _, r := range aclRecipe(t) {
		if slices.Contains(without, r) {
			dropped++
			continue
		}
		r = strings.ReplaceAll(r, "{hopper", "{"+prefix)
		r = strings.ReplaceAll(r, "&hopper:", "&"+prefix+":")
		if strings.HasPrefix(r, ">") {
			r = ">secret"
		}
		args = append(args, r)
	}
	if dropped != len(without) {
		t.Fatalf("the documented ACL rules lack some of %v", without)
	}
	for _, r := range extra {
		args = append(args, r)
	}
	return args
}

// aclUser creates user name on admin's server as aclSetUser does and
// returns a client for it made by client.
func aclUser(t *testing.T, admin *redis.Client, name, prefix string, without, extra []string,
	client func(t testing.TB, configure ...func(*redis.Options)) *redis.Client) *redis.Client {
	t.Helper()
	args := aclSetUser(t, name, prefix, without, extra)
	if err := admin.Do(t.Context(), args...).Err(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return client(t, func(o *redis.Options) {
		o.Username, o.Password = name, "secret"
	})
}

// TestSecureConformance runs the conformance suite over mutual TLS, each
// store as an ACL user of its own with exactly the documented rights for
// its prefix: every operation of the Store works with them, a workflow of
// more than two tasks stored in steps included (two tasks a staging call,
// workflow_stage.go).
func TestSecureConformance(t *testing.T) {
	srv := redistest.StartTLS(t)
	admin := srv.Client(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		prefix := redistest.Prefix(t)
		var logs logBuffer
		rdb := aclUser(t, admin, prefix, prefix, nil, nil, srv.Client)
		s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
		redisstore.StageWorkflowTasks(s, 2)
		// Connect (TLS handshake) and check now: some cases time their
		// first Enqueue against a due time tens of milliseconds away.
		if err := s.Check(t.Context()); err != nil {
			t.Fatalf("Check with the documented rights: %v", err)
		}
		t.Cleanup(func() {
			if out := logs.String(); out != "" {
				t.Errorf("store logged with the documented rights: %s", out)
			}
		})
		return s
	})
}

type secureJob struct{ N int }

func (secureJob) Kind() string { return "secure" }

// TestSecureWorker runs a Worker and a Scheduler over mutual TLS as an ACL
// user with the documented rights minus INFO, CONFIG GET and SCRIPT LOAD:
// the start-up check says it could not check and goes on, scripts are
// sent with EVAL, and jobs run, are retried and acked.
func TestSecureWorker(t *testing.T) {
	srv := redistest.StartTLS(t)
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, "app", prefix, []string{"+info", "+config|get", "+script|load"}, nil, srv.Client)
	var logs logBuffer
	rs := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
	ctx := t.Context()
	if err := rs.Check(ctx); err != nil {
		t.Fatalf("Check without INFO and CONFIG GET: %v, want only warnings", err)
	}
	for _, want := range []string{"cannot check the Redis version", "cannot check maxmemory-policy", "NOPERM"} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("log of the check without INFO and CONFIG GET: %q, want %q", logs.String(), want)
		}
	}

	const jobs = 20
	var (
		mu   sync.Mutex
		runs = map[int]int{} // job N -> attempts seen
	)
	w := hopper.NewWorker(rs, &hopper.WorkerConfig{
		Queues:      map[string]int{"q": 1},
		Concurrency: 4,
		Backoff:     func(int, error) time.Duration { return 10 * time.Millisecond },
		Logger:      logs.logger(),
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[secureJob]) error {
		mu.Lock()
		defer mu.Unlock()
		runs[job.Args.N]++
		if job.Args.N%5 == 0 && job.Attempt == 1 {
			return errors.New("first attempt fails")
		}
		return nil
	})
	sched := hopper.NewScheduler(rs, &hopper.SchedulerConfig{Queues: []string{"q"}})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 2)
	go func() { done <- w.Run(runCtx) }()
	go func() { done <- sched.Run(runCtx) }()
	defer func() {
		stop()
		for range 2 {
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("Run did not return within 30 s of its context ending")
				return
			}
		}
	}()

	client := hopper.NewClient(rs, nil)
	for n := range jobs {
		opts := &hopper.EnqueueOpts{Queue: "q", ID: fmt.Sprint("job-", n)}
		if n%2 == 1 {
			opts.Delay = 20 * time.Millisecond // promoted by the scheduler
		}
		if _, err := hopper.Enqueue(ctx, client, secureJob{N: n}, opts); err != nil {
			t.Fatalf("Enqueue %d: %v", n, err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := rs.GetQueueStats(ctx, "q")
		if err != nil {
			t.Fatal(err)
		}
		c := st.Counts
		if c.Pending+c.Ready+c.Unack+c.Retry+c.Garbage == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs left after 20 s: %+v; log: %s", c, logs.String())
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronisation
	}
	mu.Lock()
	for n := range jobs {
		want := 1
		if n%5 == 0 {
			want = 2
		}
		if runs[n] != want {
			t.Errorf("job %d ran %d times, want %d", n, runs[n], want)
		}
	}
	mu.Unlock()
	if _, err := rs.GetJob(ctx, "q", "job-0"); !errors.Is(err, store.ErrJobNotFound) {
		t.Errorf("GetJob of an acked job: %v, want ErrJobNotFound", err)
	}
	// The worker's first heartbeat is written beside its first claims, not
	// before them: the jobs may all be done first (seen under CI load).
	testutil.EventuallyTrue(t, testutil.Wait, "the running worker's record", func() bool {
		ws, err := rs.ListWorkers(ctx)
		return err == nil && len(ws) == 1
	})
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("errors logged: %s", logs.String())
	}
}

// TestTLSRefusesUntrustedPeers: a client with no certificate, with a
// certificate of another authority, or that does not trust the server's
// authority gets a clear error, and nothing is written.
func TestTLSRefusesUntrustedPeers(t *testing.T) {
	srv := redistest.StartTLS(t)
	admin := srv.Client(t)
	other := redistest.MakeCerts(t)
	otherTLS := other.ClientTLS(t)
	for _, c := range []struct {
		name      string
		configure func(*redis.Options)
		want      string
	}{
		{"no client certificate", func(o *redis.Options) { o.TLSConfig.Certificates = nil }, "certificate required"},
		{"client certificate of another authority", func(o *redis.Options) {
			o.TLSConfig.Certificates = otherTLS.Certificates
		}, "unknown certificate authority"},
		{"server of an unknown authority", func(o *redis.Options) {
			o.TLSConfig.RootCAs = otherTLS.RootCAs
		}, "certificate signed by unknown authority"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := redistest.Prefix(t)
			rdb := srv.Client(t, c.configure, func(o *redis.Options) { o.MaxRetries = -1 })
			s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
			_, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "a")})
			if err == nil || !strings.HasPrefix(err.Error(), "redisstore: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Enqueue: %v, want a redisstore error saying %q", err, c.want)
			}
			if !errors.Is(err, redisstore.ErrAuth) || redisstore.Temporary(err) {
				t.Errorf("Enqueue: %v is not ErrAuth, or is temporary (%v); a refused certificate needs an operator", err, redisstore.Temporary(err))
			}
			keys, err := admin.Keys(t.Context(), "{"+prefix+"*").Result()
			if err != nil || len(keys) != 0 {
				t.Fatalf("keys written by the refused client: %v, %v", keys, err)
			}
		})
	}
}

// TestACLMissingRight: a user that lacks a key pattern or a command of the
// recipe gets errors wrapping ErrNoPerm, not temporary, whose text says
// where to look.
func TestACLMissingRight(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	for _, c := range []struct {
		name    string
		without string
		op      func(*testing.T, *redisstore.Store) error
	}{
		{"store-wide keys", "~{hopper}:*", func(t *testing.T, s *redisstore.Store) error {
			// Enqueue does not fail on the registry it could not write
			// (doc.go says so); Queues does.
			mustEnqueue(t, s, job("q", "a"))
			_, err := s.ListQueues(t.Context())
			return err
		}},
		{"queue keys", "~{hopper:*", func(t *testing.T, s *redisstore.Store) error {
			_, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "a")})
			return err
		}},
		{"a command of the scripts", "+lpop", func(t *testing.T, s *redisstore.Store) error {
			mustEnqueue(t, s, job("q", "a"))
			_, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute})
			return err
		}},
		{"the wake-ups", "+subscribe", waitUntilRefused},
		{"the wake-up channels", "&hopper:*", waitUntilRefused},
		{"the scripts", "+fcall", func(t *testing.T, s *redisstore.Store) error {
			_, err := hopper.NewInspector(s).GetQueueStats(t.Context(), "q")
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := redistest.Prefix(t)
			rdb := aclUser(t, admin, prefix, prefix, []string{c.without}, nil, srv.Client)
			s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
			err := c.op(t, s)
			if !errors.Is(err, redisstore.ErrNoPerm) || redisstore.Temporary(err) ||
				!strings.Contains(err.Error(), "Access control") {
				t.Fatalf("without %s: %v, want ErrNoPerm, not temporary, pointing to Access control", c.without, err)
			}
		})
	}
}

// TestACLCluster: on a Redis Cluster the documented rules need
// +cluster|slots and +command as well, as the documentation says; with
// them, queues on several shards work.
func TestACLCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("a private cluster in -short mode")
	}
	c := redistest.StartCluster(t, redistest.Private())
	prefix := redistest.Prefix(t)
	queues := []string{"q1", "q2", "q3", "q4"} // tags {p:q1}... spread over the shards
	for _, extra := range [][]string{nil, {"+cluster|slots", "+command"}} {
		user := fmt.Sprint("app", len(extra))
		if err := doOnNodes(t.Context(), c.Addrs, aclSetUser(t, user, prefix, nil, extra)...); err != nil {
			t.Fatal(err)
		}
		rdb := c.Client(t, func(o *redis.ClusterOptions) { o.Username, o.Password = user, "secret" })
		var logs logBuffer
		s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
		var jobs []*store.NewJob
		for _, q := range queues {
			jobs = append(jobs, job(q, user))
		}
		_, err := s.Enqueue(t.Context(), jobs)
		if extra == nil {
			if !errors.Is(err, redisstore.ErrNoPerm) || !strings.Contains(err.Error(), "cluster|slots") {
				t.Fatalf("Enqueue on a cluster without +cluster|slots: %v, want ErrNoPerm naming cluster|slots", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Enqueue on a cluster with %v: %v", extra, err)
		}
		if _, err := s.WaitReady(t.Context(), queues, time.Second); err != nil {
			t.Fatalf("WaitReady: %v", err)
		}
		for _, q := range queues {
			res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: q, Max: 1, Lease: time.Minute})
			if err != nil || len(res.Jobs) != 1 {
				t.Fatalf("Claim from %s: %d jobs, %v; want 1", q, len(res.Jobs), err)
			}
		}
		if out := logs.String(); out != "" {
			t.Errorf("store logged with the documented rights: %s", out)
		}
	}
}

// waitUntilRefused waits on a queue until the wait fails (the
// subscription is made in the background: the first waits of a new queue
// return at once), or returns nil after a few seconds.
func waitUntilRefused(t *testing.T, s *redisstore.Store) error {
	var err error
	testutil.Poll(10*time.Second, func() bool {
		_, err = s.WaitReady(t.Context(), []string{"q"}, 100*time.Millisecond)
		return err != nil
	})
	return err
}

// TestEventsWithoutExpireRights: an ACL user of an older recipe, without
// +pexpire and +persist, still enqueues and reads events once its readers
// left and came back: the stream then keeps no TTL, as before.
func TestEventsWithoutExpireRights(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+pexpire", "+persist"}, nil, srv.Client)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	ctx := t.Context()
	_, pos, _ := readAll(t, s, "mail", store.FromNow)
	mustEnqueue(t, s, job("mail", "a"))
	if _, pos, _ = readAll(t, s, "mail", pos); pos == "" {
		t.Fatal("no position after the first read")
	}
	if err := admin.HSet(ctx, "{"+prefix+":mail}:m", "evr", "1").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("mail", "b"))
	// The reader back, in a new process (this one remembers its
	// interest).
	back := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	readAll(t, back, "mail", pos)
	mustEnqueue(t, s, job("mail", "c"))
	ids, _, lost := readAll(t, back, "mail", pos)
	if !slices.Equal(ids, []string{"c"}) || !slices.Equal(lost, []string{"mail"}) {
		t.Fatalf("events after the gap: %v, lost %v; want c, and mail lost", ids, lost)
	}
}

// TestLargeWorkflowWithoutStagingRights: an ACL user of an older recipe,
// without +rename +pexpire +persist, creates a large workflow in one step,
// as before staging: nothing staged, nothing refused.
func TestLargeWorkflowWithoutStagingRights(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+rename", "+pexpire", "+persist"}, nil, srv.Client)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	redisstore.StageWorkflowTasks(s, 3)
	ctx := t.Context()
	if dup, err := s.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb")); err != nil || dup {
		t.Fatalf("EnqueueWorkflow without the staging rights: dup %v, %v", dup, err)
	}
	rec, err := s.GetWorkflow(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Tasks) != 11 || rec.Counts[store.TaskEnqueued] != 9 {
		t.Fatalf("workflow: %d tasks, counts %v; want 11, 9 enqueued", len(rec.Tasks), rec.Counts)
	}
	if left := stagedKeys(t, admin, prefix, "w"); len(left) > 0 {
		t.Fatalf("staged keys: %v", left)
	}
}
