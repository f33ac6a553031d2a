package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func TestEvents(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		// Someone reads the queue's events (redisstore writes them while
		// someone does), then the seed makes its history.
		if _, _, _, err := c.store.(store.EventReader).ReadEvents(t.Context(), map[string]string{"default": hopper.FromNow}, 1, 0); err != nil {
			t.Fatal(err)
		}
		ids := seed(t, c.store)
		// From the start: the seed's history, each event once.
		r := c.run(t, "events", "--queue", "default", "--from", "start", "--count", "5")
		wantCode(t, r, 0, "events --from start")
		wantOut(t, r.stdout, "events --from start",
			"enqueued   "+ids.garbage+" send_email", "started    "+ids.garbage+" send_email attempt=1",
			"dead       "+ids.garbage, `error="smtp: 550 no such user"`, "state=ready", "state=pending")

		// Live, as JSON lines with positions, from the last event so far:
		// a job run to its end.
		r = c.run(t, "events", "--queue", "default", "--from", "start", "--count", "5", "--json")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		var last eventLine
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Pos == "" {
			t.Fatalf("events --json: last line %q: %v", lines[len(lines)-1], err)
		}
		stdout, stop := c.start(t, "", "events", "--queue", "default", "--json", "--job", ids.ready, "--from", last.Pos)
		ctx := context.Background()
		res, err := c.store.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Hour, WorkerID: "cli-test"})
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != ids.ready {
			t.Fatal(res, err)
		}
		j := res.Jobs[0]
		if _, err := c.store.Finish(ctx, []store.AttemptEnd{{Queue: "default", ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeAck}}); err != nil {
			t.Fatal(err)
		}
		testutil.Poll(testutil.Wait, func() bool { return strings.Count(stdout(), "\n") >= 2 }) // the check below says what came
		r = stop()
		lines = strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 2 {
			t.Fatalf("events --json --job: %d lines, want started and succeeded:\n%s\n%s", len(lines), r.stdout, r.stderr)
		}
		for i, want := range []string{"started", "succeeded"} {
			var l eventLine
			if err := json.Unmarshal([]byte(lines[i]), &l); err != nil || l.Type != want || l.ID != ids.ready || l.Pos == "" || l.Worker != "" && want != "started" {
				t.Errorf("line %d: %+v, %v; want %s of %s with a position", i, l, err, want, ids.ready)
			}
		}
	})
}

func TestEventsBadInput(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		wantCode(t, c.run(t, "events"), 2, "events without --queue")
		wantCode(t, c.run(t, "events", "--queue", "bad queue"), 2, "events of a bad queue name")
	})
}

// TestEventsBadFromOrCount: a --from that is not an event position, and a
// negative --count, are refused with a line naming the flag, exit 2,
// before the store is opened. --from garbage connected, printed
// "following ..." and failed with "hopper: invalid config: event
// position"; --count -1 followed forever.
func TestEventsBadFromOrCount(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "garbage"}, `hopper events: --from "garbage" is not an event position: use now, start, or the position of an event (hopper events --json prints them)`},
		{[]string{"--from", "12/x"}, `hopper events: --from "12/x" is not an event position`},
		{[]string{"--from", "-3"}, `hopper events: --from "-3" is not an event position`},
		{[]string{"--count", "-1"}, "hopper events: --count -1 is negative"},
	} {
		what := "events " + strings.Join(tc.args, " ")
		r := c.run(t, append([]string{"events", "--queue", "billing"}, tc.args...)...)
		if r.code != 2 {
			t.Errorf("%s: exit code %d, want 2\n%s", what, r.code, r.stderr)
		}
		if first, _, _ := strings.Cut(r.stderr, "\n"); first != tc.want && !strings.HasPrefix(first, tc.want+":") {
			t.Errorf("%s: first line %q, want %q", what, first, tc.want)
		}
		if strings.Contains(r.stderr, "following") {
			t.Errorf("%s: followed the stream before refusing:\n%s", what, r.stderr)
		}
	}
}
