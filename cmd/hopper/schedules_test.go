package main

import (
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
