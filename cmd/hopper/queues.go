package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// runQueues pauses or resumes queues, or changes some of their settings.
func runQueues(ctx context.Context, a *app, args []string) error {
	const usageText = "usage: hopper queues <pause|resume> [--redis URL] NAME...\n       hopper queues set [--redis URL] [--max-running N] [--rate-limit N] ... NAME..."
	verb, rest, err := subcommand(a, "queues", usageText, args, "pause", "resume", "set")
	if err != nil {
		return err
	}
	if verb == "set" {
		return runQueuesSet(ctx, a, rest)
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
	paused := verb == "pause"
	set := ins.ResumeQueue
	if paused {
		set = ins.PauseQueue
	}
	for _, q := range names {
		if err := set(ctx, q); err != nil {
			return err
		}
		if paused {
			fmt.Fprintf(a.stdout, "paused %s: workers claim nothing from it until it is resumed\n", q)
		} else {
			fmt.Fprintf(a.stdout, "resumed %s\n", q)
		}
	}
	return nil
}

// openQueues checks the queue names a command was given, a name that is
// not one being bad usage, and opens the store it names, for an
// Inspector; the caller calls closeStore when done.
func (a *app) openQueues(ctx context.Context, fs *flag.FlagSet, sf *storeFlags, names []string) (ins *hopper.Inspector, closeStore func(), err error) {
	if err := checkArgs(fs, names, store.ValidateQueue); err != nil {
		return nil, nil, err
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return nil, nil, err
	}
	return hopper.NewInspector(s), closeStore, nil
}
