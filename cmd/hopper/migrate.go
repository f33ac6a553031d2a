package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hopperq/hopper/redisstore"
)

// migrateUsage lists the subcommands of "hopper migrate".
const migrateUsage = `usage: hopper migrate <status|up> [flags]

  status                    the layout of the data in Redis, what this release
                            writes, the steps pending and old workers alive;
                            exits 1 when workers of this release refuse the data
  up [--dry-run] [--force]  run the pending steps, then store the new layout;
                            --dry-run prints what each step would do, --force
                            runs while workers of an older release are alive

Run "hopper migrate up" once every worker runs this release. Running it again
is harmless: a step left half done resumes, a current Redis is left alone.`

// runMigrate dispatches the subcommands of "hopper migrate".
func runMigrate(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand(a, "migrate", migrateUsage, args, "status", "up")
	if err != nil {
		return err
	}
	fs := newFlags("migrate "+sub, "hopper migrate "+sub+" [flags]", a.stderr)
	sf := addStoreFlags(fs)
	var dry, force *bool
	if sub == "up" {
		dry = fs.Bool("dry-run", false, "print what each step would do, change nothing")
		force = fs.Bool("force", false, "migrate while workers of an older release are alive")
	}
	pos, err := parse(fs, rest)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badUsage(fs, "unexpected argument %q", pos[0])
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	rs, ok := s.(*redisstore.Store)
	if !ok {
		return fmt.Errorf("the store is not a Redis store (%T): only redisstore keeps a data layout", s)
	}
	if sub == "status" {
		return migrateStatus(ctx, a.stdout, rs)
	}
	return migrateUp(ctx, a.stdout, rs, redisstore.MigrateOpts{DryRun: *dry, Force: *force})
}

// migrateStatus prints the layout, the pending steps and the old workers.
func migrateStatus(ctx context.Context, w io.Writer, s *redisstore.Store) error {
	st, err := s.Layout(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "stored layout:    %s\n", storedLayout(st))
	fmt.Fprintf(w, "this release:     layout %d (reads layouts %d to %d)\n", st.Current, st.OldestReadable, st.Current)
	switch {
	case st.Stored > st.Current:
		fmt.Fprintln(w, "pending steps:    none this release knows")
	case len(st.Pending) == 0:
		fmt.Fprintln(w, "pending steps:    none, the data is current")
	default:
		fmt.Fprintln(w, "pending steps:")
		for _, m := range st.Pending {
			fmt.Fprintf(w, "  %d -> %d  %s\n", m.From, m.To, m.Summary)
		}
		if st.Forced {
			fmt.Fprintln(w, "  (again: a migration was forced while workers of an older release were alive)")
		}
	}
	printOldWorkers(w, st.OldWorkers)
	switch {
	case st.Err != nil:
		// Exit 1: a deploy script may gate on the status.
		fmt.Fprintf(w, "\nworkers of this release refuse this data: %v\n", st.Err)
		return errFailed
	case len(st.Pending) > 0:
		fmt.Fprintln(w, "\nOnce every worker runs this release, run: hopper migrate up")
	}
	return nil
}

// storedLayout describes the stored layout.
func storedLayout(st redisstore.LayoutStatus) string {
	switch {
	case st.Fresh:
		return fmt.Sprintf("none, no hopper data under the prefix (a store writes layout %d at start; check --redis-prefix and --redis if you expected some)", st.Current)
	case !st.Marked:
		return "0 (hopper data without a layout version: written before v0.1.0)"
	}
	return fmt.Sprint(st.Stored)
}

// printOldWorkers lists the live workers of older releases.
func printOldWorkers(w io.Writer, ws []redisstore.OldWorker) {
	if len(ws) == 0 {
		fmt.Fprintln(w, "old workers:      none alive")
		return
	}
	fmt.Fprintf(w, "old workers:      %d alive, of a release that writes an older layout:\n", len(ws))
	for _, o := range ws {
		if o.Layout < 0 {
			fmt.Fprintf(w, "  %s  a record that does not decode (a release this one does not know, or damaged)\n", o.ID)
			continue
		}
		fmt.Fprintf(w, "  %s  host %s  pid %d  layout %d\n", o.ID, o.Host, o.PID, o.Layout)
	}
}

// migrateUp runs the pending steps and prints each and what it did.
func migrateUp(ctx context.Context, w io.Writer, s *redisstore.Store, opts redisstore.MigrateOpts) error {
	st, err := s.Layout(ctx)
	if err != nil {
		return err
	}
	// Blocked: refused before any step, as old workers are alive and it is
	// not forced, or forced but its first step is never forced.
	blocked := len(st.OldWorkers) > 0 && (!opts.Force || len(st.Pending) > 0 && st.Pending[0].NotForced != "")
	if opts.DryRun && len(st.Pending) > 0 {
		fmt.Fprintf(w, "dry run, nothing is changed: layout %d to %d\n", st.Stored, st.Current)
	} else if len(st.Pending) > 0 && !blocked && st.Forced && st.Stored == st.Current {
		fmt.Fprintf(w, "migrating again: layout %d (a migration was forced while workers of an older release were alive)\n", st.Current)
	} else if len(st.Pending) > 0 && !blocked && st.Forced {
		fmt.Fprintf(w, "migrating again from layout %d, to %d (a migration was forced while workers of an older release were alive)\n", st.Pending[0].From, st.Current)
	} else if len(st.Pending) > 0 && !blocked {
		fmt.Fprintf(w, "migrating: layout %d to %d\n", st.Stored, st.Current)
	}
	opts.Progress = func(line string) { fmt.Fprintln(w, line) }
	rep, err := s.Migrate(ctx, opts)
	if errors.Is(err, redisstore.ErrOldWorkers) {
		printOldWorkers(w, rep.OldWorkers)
		if opts.Force {
			// A step that cannot be forced: those before it ran.
			fmt.Fprintf(w, "stopped: the data is at layout %d\n", rep.To)
			return err
		}
		return fmt.Errorf("%w with --force", err)
	}
	if err != nil {
		if len(rep.Steps) > 0 {
			return fmt.Errorf("%w\nrun \"hopper migrate up\" again to resume", err)
		}
		return err
	}
	switch {
	case rep.AlreadyCurrent && st.Fresh:
		fmt.Fprintf(w, "nothing to do: no hopper data under the prefix; layout %d is current\n", rep.To)
	case rep.AlreadyCurrent:
		fmt.Fprintf(w, "nothing to do: the data is at layout %d, current\n", rep.To)
	case opts.DryRun:
		fmt.Fprintf(w, "dry run: %d step(s) would run; nothing was changed\n", len(rep.Steps))
	default:
		fmt.Fprintf(w, "done: the data is at layout %d\n", rep.To)
	}
	if len(rep.OldWorkers) > 0 && opts.Force && !opts.DryRun {
		fmt.Fprintln(w, strings.TrimSpace(`
warning: workers of an older release were alive (--force); what they write
from now on is in the older layout: run "hopper migrate up" again once they
are gone.`))
	}
	return nil
}
