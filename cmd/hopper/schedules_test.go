package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

func TestSchedulesCommands(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ins := hopper.NewInspector(c.store)
		p := hopper.Schedule{Name: "nightly", Spec: hopper.Every(time.Hour), Args: emailArgs{}}
		if err := ins.SetSchedule(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		r := c.run(t, "schedules", "list")
		wantCode(t, r, 0, "schedules list")
		wantOut(t, r.stdout, "schedules list", "nightly", "@every 1h0m0s", "running")
		wantCode(t, c.run(t, "schedules", "pause", "nightly"), 0, "pause")
		wantOut(t, c.run(t, "schedules", "list").stdout, "list after pause", "paused")
		wantCode(t, c.run(t, "schedules", "respec", "--spec", "@every 2h", "nightly"), 0, "respec")
		wantOut(t, c.run(t, "schedules", "list").stdout, "list after respec", "@every 2h")
		wantCode(t, c.run(t, "schedules", "respec", "--spec", "sometimes", "nightly"), 1, "bad spec")
		wantCode(t, c.run(t, "schedules", "delete", "nightly"), 0, "delete")
		r = c.run(t, "schedules", "delete", "nightly")
		wantCode(t, r, 1, "delete again")
		wantOut(t, r.stderr, "delete again", "not found")
		wantCode(t, c.run(t, "schedules", "pause"), 2, "no name")
		wantCode(t, c.run(t, "schedules", "frob"), 2, "unknown subcommand")
	})
}

// TestSchedulesRespecBadSpec: a spec that does not parse is one line
// naming --spec, with "hopper" once; it said "nightly: hopper: invalid
// config: schedule "nightly": hopper: schedule "sometimes": ...".
func TestSchedulesRespecBadSpec(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		p := hopper.Schedule{Name: "nightly", Spec: hopper.Every(time.Hour), Args: emailArgs{}}
		if err := hopper.NewInspector(c.store).SetSchedule(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		for spec, want := range map[string]string{
			"sometimes":   `hopper schedules: --spec "sometimes": expected 5 to 6 fields`,
			"@every 0s":   `hopper schedules: --spec "@every 0s": interval must be at least 1ms`,
			"@every soon": `hopper schedules: --spec "@every soon": time: invalid duration "soon"`,
		} {
			r := c.run(t, "schedules", "respec", "--spec", spec, "nightly")
			wantCode(t, r, 1, "respec --spec "+spec)
			if !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "hopper") != 1 || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("respec --spec %q: stderr\n%s\nwant one line starting %q, with \"hopper\" once", spec, r.stderr, want)
			}
		}
	})
}

// TestSchedulesBadQueue: an invalid --queue is refused before connecting,
// naming the flag; it was looked up and reported as a schedule "not
// found" in queue "bad q".
func TestSchedulesBadQueue(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	for _, sub := range []string{"pause", "resume", "delete"} {
		r := c.run(t, "schedules", sub, "--queue", "bad q", "nightly")
		wantCode(t, r, 1, "schedules "+sub+" --queue 'bad q'")
		wantOneLine(t, r, "schedules "+sub+" --queue 'bad q'", `hopper schedules: --queue: invalid queue name: "bad q"`)
	}
}
