package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/store"
)

func TestJobsList(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		r := c.run(t, "jobs", "list", "--state", "garbage")
		wantCode(t, r, 0, "jobs list")
		wantOut(t, r.stdout, "jobs list", ids.garbage, "send_email", "1/1", "smtp: 550 no such user", `"password":"[redacted]"`, "1 of 1 jobs in garbage of default")
		if strings.Contains(r.stdout, "hunter2") {
			t.Errorf("jobs list shows a secret:\n%s", r.stdout)
		}

		r = c.run(t, "jobs", "list", "--state", "garbage", "--no-redact")
		wantOut(t, r.stdout, "jobs list --no-redact", "hunter2")

		r = c.run(t, "jobs", "list", "--search", "ALICE")
		wantCode(t, r, 0, "jobs list --search")
		wantOut(t, r.stdout, "jobs list --search", ids.ready, "1 match in ready of default, among jobs 1–")
		r = c.run(t, "jobs", "list", "--state", "garbage", "--search", "hunter2")
		wantOut(t, r.stdout, "search for a secret", "0 matches in garbage of default, among jobs 1–1 of 1")

		r = c.run(t, "jobs", "list", "--state", "pending", "--json")
		wantCode(t, r, 0, "jobs list --json")
		var j struct {
			ID, State string
			Args      map[string]any
		}
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.ID != ids.pending || j.Args["to"] != "later@example.com" {
			t.Errorf("jobs list --json: %+v, %v\n%s", j, err, r.stdout)
		}

		wantBadUsage(t, c.run(t, "jobs", "list", "--state", "nope"), "bad state", `hopper jobs list: --state: invalid job state: "nope"`)
		// "dead" said only that the state is invalid; it says where dead jobs are.
		wantBadUsage(t, c.run(t, "jobs", "list", "--state", "dead"), "state dead",
			`hopper jobs list: --state: invalid job state: "dead" (want one of pending, ready, unack, retry, garbage, done); dead jobs are in garbage`)
		wantBadUsage(t, c.run(t, "jobs", "retry", "--all", "--queue", "default", "--state", "dead"), "retry --state dead",
			`hopper jobs retry: --state: invalid job state: "dead" (want one of pending, ready, unack, retry, garbage, done); dead jobs are in garbage`)
	})
}

func TestJobsShow(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		r := c.run(t, "jobs", "show", ids.garbage)
		wantCode(t, r, 0, "jobs show")
		wantOut(t, r.stdout, "jobs show", "ID:", ids.garbage, "State:        garbage", "Attempts:     1 of 1",
			`"to": "dead@example.com"`, `"password": "[redacted]"`, "attempt 1", "smtp: 550 no such user", "| goroutine 1 [running]:",
			"started ", " on worker-7:") // the start and worker of the failed attempt, as --json and the dashboard give them
		if strings.Contains(r.stdout, "hunter2") {
			t.Errorf("jobs show shows a secret:\n%s", r.stdout)
		}
		r = c.run(t, "jobs", "show", ids.ready, "--queue", "default", "--json")
		wantCode(t, r, 0, "jobs show --json")
		var j struct{ ID, Queue, State string }
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.ID != ids.ready || j.State != "ready" {
			t.Errorf("jobs show --json: %+v, %v", j, err)
		}
		r = c.run(t, "jobs", "show", "nope")
		wantCode(t, r, 1, "show unknown")
		wantOut(t, r.stderr, "show unknown", `no job "nope" in any queue`)
		wantCode(t, c.run(t, "jobs", "show"), 2, "show without ID")
	})
}

func TestJobsRetryDeleteCancel(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		r := c.run(t, "jobs", "retry", ids.garbage)
		wantCode(t, r, 0, "retry")
		wantOut(t, r.stdout, "retry", "requeued "+ids.garbage+" (was garbage in default)")
		if st := state(t, c.store, ids.garbage); st != hopper.StateReady {
			t.Errorf("retried job in %q", st)
		}
		r = c.run(t, "jobs", "retry", ids.ready)
		wantCode(t, r, 1, "retry a ready job")

		r = c.run(t, "jobs", "cancel", ids.pending)
		wantCode(t, r, 0, "cancel")
		wantOut(t, r.stdout, "cancel", "cancelled "+ids.pending+" (was pending): moved to garbage")
		if st := state(t, c.store, ids.pending); st != hopper.StateGarbage {
			t.Errorf("cancelled job in %q", st)
		}

		r = c.run(t, "jobs", "delete", "--queue", "default", ids.pending, "nope")
		wantCode(t, r, 1, "delete one known, one unknown")
		wantOut(t, r.stdout, "delete", "deleted "+ids.pending)
		wantOut(t, r.stderr, "delete", "nope:")
		if st := state(t, c.store, ids.pending); st != "" {
			t.Errorf("deleted job in %q", st)
		}

		// All in a state needs --queue and --state, and no IDs.
		wantCode(t, c.run(t, "jobs", "delete", "--all", "--queue", "default"), 2, "delete --all without --state") // bad usage, as with IDs below
		wantCode(t, c.run(t, "jobs", "delete", "--all", "--queue", "default", "--state", "ready", ids.ready), 2, "delete --all with IDs")
		wantCode(t, c.run(t, "jobs", "delete"), 2, "delete nothing")
		r = c.run(t, "jobs", "delete", "--all", "--queue", "default", "--state", "ready")
		wantCode(t, r, 0, "delete --all")
		wantOut(t, r.stdout, "delete --all", "deleted 2 jobs from ready of default")
		wantCode(t, c.run(t, "jobs", "frobnicate"), 2, "unknown subcommand")
	})
}

func TestJobsReschedule(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		r := c.run(t, "jobs", "reschedule", "--now", ids.pending)
		wantCode(t, r, 0, "reschedule --now")
		wantOut(t, r.stdout, "reschedule --now", ids.pending+" is ready")
		if st := state(t, c.store, ids.pending); st != hopper.StateReady {
			t.Errorf("rescheduled job in %q, want ready", st)
		}
		r = c.run(t, "jobs", "reschedule", "--at", "2099-01-02T03:04:05Z", ids.pending)
		wantCode(t, r, 0, "reschedule --at")
		wantOut(t, r.stdout, "reschedule --at", ids.pending+" is pending, due 2099-01-02T03:04:05Z")
		r = c.run(t, "jobs", "reschedule", "--in", "1h", ids.garbage)
		wantCode(t, r, 1, "reschedule a dead job")
		wantOut(t, r.stderr, "reschedule a dead job", "only a waiting job")
		wantCode(t, c.run(t, "jobs", "reschedule", "--now", "--in", "1h", ids.ready), 2, "two due times")
		wantCode(t, c.run(t, "jobs", "reschedule", ids.ready), 2, "no due time")
		wantBadUsage(t, c.run(t, "jobs", "reschedule", "--at", "tomorrow", ids.ready), "bad --at", `hopper jobs reschedule: --at "tomorrow" is not an RFC 3339 time`)

		r = c.run(t, "jobs", "reschedule", "--priority", "-2", ids.ready)
		wantCode(t, r, 0, "reschedule --priority")
		wantOut(t, r.stdout, "reschedule --priority", ids.ready+" is ready", "priority -2")
		j, err := hopper.NewInspector(c.store).GetJob(t.Context(), "default", ids.ready)
		if err != nil || j.Priority != -2 {
			t.Errorf("after --priority -2: %+v, %v; want priority -2", j, err)
		}
		wantBadUsage(t, c.run(t, "jobs", "reschedule", "--priority", "9", ids.ready), "priority out of range", "hopper jobs reschedule: --priority 9 is not between -3 and 3")
	})
}

func TestQueuesPauseResume(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		seed(t, c.store)
		ctx := t.Context()
		if err := hopper.NewInspector(c.store).SetQueueConfig(ctx, "default", hopper.QueueConfig{MaxRunning: 3}); err != nil {
			t.Fatal(err)
		}
		r := c.run(t, "queues", "pause", "default", "other")
		wantCode(t, r, 0, "pause")
		wantOut(t, r.stdout, "pause", "paused default", "paused other")
		st, err := hopper.NewInspector(c.store).GetQueueStats(ctx, "default")
		if err != nil || !st.Config.Paused || st.Config.MaxRunning != 3 {
			t.Errorf("after pause: %+v, %v; want paused with MaxRunning kept", st.Config, err)
		}
		wantOut(t, c.run(t, "stats").stdout, "stats after pause", "yes")
		wantCode(t, c.run(t, "queues", "resume", "default"), 0, "resume")
		if st, _ := hopper.NewInspector(c.store).GetQueueStats(ctx, "default"); st.Config.Paused || st.Config.MaxRunning != 3 {
			t.Errorf("after resume: %+v", st.Config)
		}
		wantBadUsage(t, c.run(t, "queues", "pause", "bad name"), "pause a bad name", `hopper queues pause: invalid queue name: "bad name"`)
		wantCode(t, c.run(t, "queues", "explode"), 2, "unknown subcommand")
	})
}

func TestUnreachableRedis(t *testing.T) {
	t.Parallel()
	c := &cli{open: openRedis, flags: []string{"--redis", "redis://127.0.0.1:1/0"}}
	r := c.run(t, "stats")
	wantCode(t, r, 1, "stats without Redis")
	wantOut(t, r.stderr, "stats without Redis", "cannot reach Redis at redis://127.0.0.1:1/0")
	c.flags = []string{"--redis", "redis://user:topsecret@127.0.0.1:1/0"}
	if r := c.run(t, "stats"); strings.Contains(r.stderr, "topsecret") {
		t.Errorf("the error shows the Redis password: %s", r.stderr)
	}
}

// TestRedisHostPort: --redis takes host:port as well as a URL.
func TestRedisHostPort(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := &cli{open: openRedis, flags: []string{"--redis", srv.Addr, "--redis-prefix", redistest.Prefix(t)}}
	r := c.run(t, "stats")
	wantCode(t, r, 0, "stats with --redis host:port")
	c.flags = []string{"--redis", "127.0.0.1:1"}
	r = c.run(t, "stats")
	wantCode(t, r, 1, "stats with --redis host:port of no server")
	wantOut(t, r.stderr, "stats with --redis host:port of no server", "cannot reach Redis at redis://127.0.0.1:1")
}

func TestUsage(t *testing.T) {
	c := &cli{}
	wantCode(t, c.run(t), 2, "no command")
	r := c.run(t, "help")
	wantCode(t, r, 0, "help")
	wantOut(t, r.stdout, "help", "demo", "dashboard", "stats", "jobs", "queues")
	wantCode(t, c.run(t, "nope"), 2, "unknown command")
	wantCode(t, c.run(t, "stats", "-h"), 0, "stats -h") // help asked for (TestHelpExitsZero)
}

// TestSubcommandHelp: each subcommand's -h prints its usage once, with the
// flags it takes and no other (jobs list, jobs show, workflows list and
// show printed theirs twice; schedules list offered --queue and --spec).
func TestSubcommandHelp(t *testing.T) {
	c := &cli{}
	for _, tc := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"jobs", "list"}, []string{"-state", "-search"}, nil},
		{[]string{"jobs", "show"}, []string{"-queue"}, nil},
		{[]string{"workflows", "list"}, nil, nil},
		{[]string{"workflows", "show"}, nil, nil},
		{[]string{"schedules", "list"}, nil, []string{"-queue", "-spec"}},
		{[]string{"schedules", "pause"}, []string{"-queue"}, []string{"-spec"}},
		{[]string{"schedules", "respec"}, []string{"-queue", "-spec"}, nil},
		{[]string{"queues", "set"}, []string{"-rate-limit"}, nil},
		{[]string{"migrate", "up"}, []string{"-dry-run"}, nil},
	} {
		name := strings.Join(tc.args, " ") + " -h"
		r := c.run(t, append(tc.args, "-h")...)
		wantCode(t, r, 0, name)
		if n := strings.Count(r.stderr, "usage: "); n != 1 {
			t.Errorf("%s printed its usage %d times:\n%s", name, n, r.stderr)
		}
		wantOut(t, r.stderr, name, append([]string{"usage: hopper " + strings.Join(tc.args, " ")}, tc.want...)...)
		for _, f := range tc.not {
			if strings.Contains(r.stderr, "  "+f+" ") {
				t.Errorf("%s lists %s, which it does not take:\n%s", name, f, r.stderr)
			}
		}
	}
}

// jobs list --kind searches the whole state, through the queue's kind
// index when it keeps one, and says how to go on (--from).
func TestJobsListSearchGoesOn(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ctx := t.Context()
		var jobs []*store.NewJob
		for i := range 30_000 {
			kind := "bulk"
			if i%10_000 == 9_999 {
				kind = "rare"
			}
			jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("j%05d", i), Queue: "big", Kind: kind, Args: []byte{0x80}})
		}
		for i := 0; i < len(jobs); i += 1000 {
			if _, err := c.store.Enqueue(ctx, jobs[i:i+1000]); err != nil {
				t.Fatal(err)
			}
		}
		// Beyond the first 10,000 jobs, one match at a time.
		r := c.run(t, "jobs", "list", "--queue", "big", "--kind", "rare", "--limit", "1")
		wantCode(t, r, 0, "jobs list --kind")
		wantOut(t, r.stdout, "first rare job", "j09999", "1 match in ready of big, among jobs 1–10000 of 30000; more with --from 10000")
		r = c.run(t, "jobs", "list", "--queue", "big", "--kind", "rare", "--from", "10000")
		wantOut(t, r.stdout, "the rest", "j19999", "j29999", "2 matches in ready of big, among jobs 10001–30000 of 30000")
		if strings.Contains(r.stdout, "j09999") || strings.Contains(r.stdout, "more with") {
			t.Errorf("going on from 10000 shows the first match again or more to come:\n%s", r.stdout)
		}

		// With the kind index, the search walks the three rare jobs only.
		if err := hopper.NewInspector(c.store).SetQueueConfig(ctx, "big", hopper.QueueConfig{KindIndex: true}); err != nil {
			t.Fatal(err)
		}
		// Redis indexes 2,000 jobs at once and Maintain the rest.
		for passes := 0; ; passes++ {
			st, err := hopper.NewInspector(c.store).GetQueueStats(ctx, "big")
			if err != nil {
				t.Fatal(err)
			}
			if !st.KindIndexBuilding {
				break
			}
			if passes == 100 {
				t.Fatal("the kind index is still being built after 100 maintenance passes")
			}
			if _, err := c.store.Maintain(ctx, "big", store.MaintainOpts{}); err != nil {
				t.Fatal(err)
			}
		}
		r = c.run(t, "jobs", "list", "--queue", "big", "--kind", "rare", "--limit", "2")
		wantOut(t, r.stdout, "through the index", "j09999", "j19999",
			"2 matches in ready of big, among jobs 1–2 of the 3 of kind rare in big (kind index); more with --from kind:2")
		r = c.run(t, "jobs", "list", "--queue", "big", "--kind", "rare", "--from", "kind:2")
		wantOut(t, r.stdout, "on through the index", "j29999", "1 match in ready of big, among jobs 3–3 of the 3 of kind rare in big (kind index)")

		for _, bad := range [][]string{{"--kind", "rare", "--from", "x"}, {"--kind", "rare", "--from", "-1"}, {"--from", "5"}} {
			r := c.run(t, append([]string{"jobs", "list", "--queue", "big"}, bad...)...)
			wantBadUsage(t, r, fmt.Sprint(bad), "hopper jobs list: --from")
		}
	})
}
