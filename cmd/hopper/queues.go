package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// runQueues pauses or resumes queues, changes some of their settings, or
// lists or caps the groups of one.
func runQueues(ctx context.Context, a *app, args []string) error {
	const usageText = "usage: hopper queues <pause|resume> [--redis URL] NAME...\n" +
		"       hopper queues set [--redis URL] [--max-running N] [--rate-limit N] ... NAME...\n" +
		"       hopper queues groups [--redis URL] [--limit N] [--json] NAME\n" +
		"       hopper queues group-limit [--redis URL] NAME GROUP N"
	verb, rest, err := subcommand(a, "queues", usageText, args, "pause", "resume", "set", "groups", "group-limit")
	if err != nil {
		return err
	}
	switch verb {
	case "set":
		return runQueuesSet(ctx, a, rest)
	case "groups":
		return runQueuesGroups(ctx, a, rest)
	case "group-limit":
		return runQueuesGroupLimit(ctx, a, rest)
	}
	fs := newFlags("queues "+verb, "hopper queues "+verb+" [--redis URL] NAME...", a.stderr)
	sf := addStoreFlags(fs)
	names, err := parse(fs, rest)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return badUsage(fs, "give the names of the queues to %s", verb)
	}
	ins, closeStore, err := a.openQueues(ctx, fs, sf, names)
	if err != nil {
		return err
	}
	defer closeStore()
	known, err := knownQueues(ctx, ins)
	if err != nil {
		return err
	}
	paused := verb == "pause"
	for _, q := range names {
		switch {
		case paused:
			if err := ins.PauseQueue(ctx, q); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "paused %s: workers claim nothing from it until it is resumed\n", q)
			if !known[q] {
				newQueue(a, "pause", q, "paused, with no jobs yet")
				known[q] = true
			}
		case !known[q]:
			// Its settings are the defaults: not paused. Resuming
			// would write them, and list the queue.
			fmt.Fprintf(a.stderr, "hopper queues resume: no queue is named %s: nothing to resume\n", q)
		default:
			if err := ins.ResumeQueue(ctx, q); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "resumed %s\n", q)
		}
	}
	return nil
}

// knownQueues returns the queues the store lists: those with jobs or
// settings (Inspector.ListQueues).
func knownQueues(ctx context.Context, ins *hopper.Inspector) (map[string]bool, error) {
	qs, err := ins.ListQueues(ctx)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(qs))
	for _, q := range qs {
		known[q] = true
	}
	return known, nil
}

// newQueue says on stderr that the queue a command (pause, set) just
// wrote the settings of was unknown before, and what it is now: setting a
// queue up before its first job is fine, a mistyped name is not.
func newQueue(a *app, verb, q, now string) {
	fmt.Fprintf(a.stderr, "hopper queues %s: no queue was named %s: it is now known, %s (check the name if you meant another queue)\n", verb, q, now)
}

// openQueues checks the queue names a command was given, a name that is
// not one or that the store refuses (checkStoreQueues) being bad usage,
// and opens the store it names, for an Inspector; the caller calls
// closeStore when done.
func (a *app) openQueues(ctx context.Context, fs *flag.FlagSet, sf *storeFlags, names []string) (ins *hopper.Inspector, closeStore func(), err error) {
	if err := checkArgs(fs, names, store.ValidateQueue); err != nil {
		return nil, nil, err
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return nil, nil, err
	}
	ins = hopper.NewInspector(s)
	if err := checkStoreQueues(ctx, fs, ins, "", names...); err != nil {
		closeStore()
		return nil, nil, err
	}
	return ins, closeStore, nil
}
