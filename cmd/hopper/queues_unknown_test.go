package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestQueuesUnknownNameSaysSo: pausing or setting a queue no store lists
// still works (a queue may be set up before its first job), and says on
// stderr that no queue had that name and that it is now known; resuming
// one says there was nothing to resume. They said "paused typo", as for
// a queue with jobs, and resume said "resumed typo".
func TestQueuesUnknownNameSaysSo(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		seed(t, c.store)
		listed := func(q string) bool {
			qs, err := hopper.NewInspector(c.store).ListQueues(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return slices.Contains(qs, q)
		}

		r := c.run(t, "queues", "pause", "default", "fresh")
		wantCode(t, r, 0, "pause a known and a new queue")
		wantOut(t, r.stdout, "pause a known and a new queue", "paused default", "paused fresh")
		if r.stderr != "hopper queues pause: no queue was named fresh: it is now known, paused, with no jobs yet (check the name if you meant another queue)\n" {
			t.Errorf("pause a known and a new queue: stderr %q, want one line on fresh", r.stderr)
		}
		if !listed("fresh") {
			t.Errorf("a queue paused before its first job is not listed")
		}

		r = c.run(t, "queues", "resume", "ghost")
		wantCode(t, r, 0, "resume an unknown queue")
		if r.stdout != "" || r.stderr != "hopper queues resume: no queue is named ghost: nothing to resume\n" {
			t.Errorf("resume an unknown queue: stdout %q, stderr %q", r.stdout, r.stderr)
		}

		r = c.run(t, "queues", "set", "--max-running", "2", "default", "later")
		wantCode(t, r, 0, "set a known and a new queue")
		wantOut(t, r.stdout, "set a known and a new queue", "set max-running of default", "set max-running of later")
		if r.stderr != "hopper queues set: no queue was named later: it is now known, with these settings and no jobs yet (check the name if you meant another queue)\n" {
			t.Errorf("set a known and a new queue: stderr %q, want one line on later", r.stderr)
		}
		r = c.run(t, "queues", "set", "--max-running", "0", "nothing")
		wantCode(t, r, 0, "set a new queue's default")
		if !strings.Contains(r.stderr, "no queue is named nothing: these are its settings already") || listed("nothing") {
			t.Errorf("set a new queue to its default: stderr %q, listed %v", r.stderr, listed("nothing"))
		}

		r = c.run(t, "queues", "resume", "fresh", "default")
		wantCode(t, r, 0, "resume known queues")
		if r.stderr != "" {
			t.Errorf("resume known queues: stderr %q, want none", r.stderr)
		}
	})
}
