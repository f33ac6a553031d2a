package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// mainEnv, set in a test binary's environment, makes it run the CLI's
// main with its arguments instead of the tests (runMain).
const mainEnv = "HOPPER_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main() // exits
	}
	redistest.Main(m)
}

// runMain runs "hopper args..." as a process, this test binary running
// main, for what only main sets up, and returns its exit code and output.
func runMain(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("hopper %v: %v", args, err)
	}
	return result{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

// syncBuffer is a buffer safe for a command writing while a test reads.
type syncBuffer = testutil.SyncBuffer

// cli runs commands against one store: a memstore through the app's store
// seam, or a real Redis through --redis and --redis-prefix.
type cli struct {
	name  string
	store hopper.Store // the same store, for the test to seed and check
	open  storeOpener
	flags []string // store flags added to every command but demo
}

// clis returns a cli on memstore and one on Redis.
func clis(t *testing.T) []*cli {
	mem := memstore.New(nil)
	memCLI := &cli{name: "memstore", store: mem, open: func(context.Context, *storeFlags) (hopper.Store, func(), error) {
		return mem, func() {}, nil
	}}
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	redisCLI := &cli{
		name:  "redisstore",
		store: redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix}),
		open:  openRedis,
		flags: []string{"--redis", "redis://" + srv.Addr + "/0", "--redis-prefix", prefix},
	}
	return []*cli{memCLI, redisCLI}
}

// eachCLI runs fn as a parallel subtest on every store.
func eachCLI(t *testing.T, fn func(t *testing.T, c *cli)) {
	for _, c := range clis(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fn(t, c)
		})
	}
}

// result is a finished command.
type result struct {
	code           int
	stdout, stderr string
}

// run runs "hopper args..." with the store flags after the subcommand
// words, and returns its exit code and output.
func (c *cli) run(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr syncBuffer
	a := &app{stdout: &stdout, stderr: &stderr, open: c.open}
	code := run(t.Context(), a, c.withFlags(args))
	return result{code, stdout.String(), stderr.String()}
}

// withFlags inserts the store flags after the command words (those before
// the first flag or ID).
func (c *cli) withFlags(args []string) []string {
	words := 1
	if len(args) > 1 && (args[0] == "jobs" || args[0] == "queues" || args[0] == "workflows" || args[0] == "schedules") {
		words = 2
	}
	words = min(words, len(args))
	out := append([]string{}, args[:words]...)
	out = append(out, c.flags...)
	return append(out, args[words:]...)
}

// start runs a long-running command in the background until the returned
// stop is called; it waits until stdout holds ready, and returns stdout
// so far.
func (c *cli) start(t *testing.T, ready string, args ...string) (stdout func() string, stop func() result) {
	t.Helper()
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(t.Context())
	a := &app{stdout: &out, stderr: &errOut, open: c.open}
	done := make(chan int, 1)
	go func() { done <- run(ctx, a, c.withFlags(args)) }()
	stop = func() result {
		cancel()
		return result{<-done, out.String(), errOut.String()}
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), ready) {
		select {
		case code := <-done:
			cancel()
			t.Fatalf("hopper %v exited with %d before printing %q:\n%s\n%s", args, code, ready, out.String(), errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			r := stop()
			t.Fatalf("hopper %v did not print %q in 30s:\n%s\n%s", args, ready, r.stdout, r.stderr)
		}
	}
	return out.String, stop
}

// wantCode fails t unless r exited with code.
func wantCode(t *testing.T, r result, code int, what string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("%s: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, code, r.stdout, r.stderr)
	}
}

// wantOut fails t unless s holds every one of subs.
func wantOut(t *testing.T, s, what string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s: output lacks %q:\n%s", what, sub, s)
		}
	}
}

type emailArgs struct {
	To       string `msgpack:"to"`
	Password string `msgpack:"password"`
}

func (emailArgs) Kind() string { return "send_email" }

// seeded holds the IDs of the jobs seed made.
type seeded struct {
	garbage, ready, pending string
}

// seed puts one garbage, one ready and one pending job in queue "default".
func seed(t *testing.T, s hopper.Store) seeded {
	t.Helper()
	ctx := context.Background()
	c := hopper.NewClient(s, nil)
	enqueue := func(a emailArgs, o *hopper.EnqueueOpts) string {
		info, err := hopper.Enqueue(ctx, c, a, o)
		if err != nil {
			t.Fatal(err)
		}
		return info.ID
	}
	var ids seeded
	ids.garbage = enqueue(emailArgs{To: "dead@example.com", Password: "hunter2"}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry})
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Hour})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatal(res, err)
	}
	j := res.Jobs[0]
	errs, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "default", ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeGarbage,
		Error: &store.AttemptError{Attempt: 1, Error: "smtp: 550 no such user", Stack: "goroutine 1 [running]:\nmain.send()",
			StartedAt: time.Now().Add(-time.Second), Worker: "worker-7"}}})
	if err != nil || errs[0] != nil {
		t.Fatal(err, errs)
	}
	ids.ready = enqueue(emailArgs{To: "alice@example.com"}, nil)
	ids.pending = enqueue(emailArgs{To: "later@example.com"}, &hopper.EnqueueOpts{Delay: time.Hour})
	return ids
}

// state returns the state of a job in "default", "" when it is gone.
func state(t *testing.T, s hopper.Store, id string) hopper.JobState {
	t.Helper()
	j, err := hopper.NewInspector(s).GetJob(context.Background(), "default", id)
	if err != nil {
		return ""
	}
	return j.State
}

// clusterURL is the --redis URL of a test Cluster for --cluster: the first
// master, and the others as addr parameters.
func clusterURL(c *redistest.Cluster) string {
	return "redis://" + c.Addrs[0] + "?addr=" + strings.Join(c.Addrs[1:], "&addr=")
}
