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
		wantCode(t, c.run(t, "schedules", "respec", "--spec", "sometimes", "nightly"), 2, "bad spec")
		wantCode(t, c.run(t, "schedules", "delete", "nightly"), 0, "delete")
		r = c.run(t, "schedules", "delete", "nightly")
		wantCode(t, r, 1, "delete again")
		wantOut(t, r.stderr, "delete again", "not found")
		wantCode(t, c.run(t, "schedules", "pause"), 2, "no name")
		wantCode(t, c.run(t, "schedules", "frob"), 2, "unknown subcommand")
	})
}

// TestSchedulesRespecBadSpec: a spec that does not parse is bad usage,
// one line naming --spec, with "hopper" once, then the usage; it said
// "nightly: hopper: invalid config: schedule "nightly": hopper: schedule
// "sometimes": ...".
func TestSchedulesRespecBadSpec(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		p := hopper.Schedule{Name: "nightly", Spec: hopper.Every(time.Hour), Args: emailArgs{}}
		if err := hopper.NewInspector(c.store).SetSchedule(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		for spec, want := range map[string]string{
			"sometimes":   `hopper schedules respec: --spec "sometimes": expected 5 to 6 fields`,
			"@every 0s":   `hopper schedules respec: --spec "@every 0s": interval must be at least 1ms`,
			"@every soon": `hopper schedules respec: --spec "@every soon": time: invalid duration "soon"`,
		} {
			r := c.run(t, "schedules", "respec", "--spec", spec, "nightly")
			wantBadUsage(t, r, "respec --spec "+spec, want)
			if line, _, _ := strings.Cut(r.stderr, "\n"); strings.Count(line, "hopper") != 1 {
				t.Errorf("respec --spec %q: %q says \"hopper\" more than once", spec, line)
			}
		}
	})
}

// TestSchedulesBadQueue: an invalid --queue is bad usage, refused before
// connecting, naming the flag; it was looked up and reported as a
// schedule "not found" in queue "bad q".
func TestSchedulesBadQueue(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	for _, sub := range []string{"pause", "resume", "delete"} {
		r := c.run(t, "schedules", sub, "--queue", "bad q", "nightly")
		wantBadUsage(t, r, "schedules "+sub+" --queue 'bad q'", `hopper schedules `+sub+`: --queue: invalid queue name: "bad q"`)
	}
}
