package main

import (
	"flag"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// otherNames maps what other systems call a state to hopper's name for
// it (see store.JobState).
var otherNames = map[string]hopper.JobState{
	"dead": hopper.StateGarbage, "archived": hopper.StateGarbage, "discarded": hopper.StateGarbage,
	"scheduled": hopper.StatePending, "running": hopper.StateUnack, "active": hopper.StateUnack,
	"completed": hopper.StateDone,
}

// parseStateFlag reads a --state value, or returns the bad usage error
// that lists the valid states and, for another system's name of one
// ("dead"), says which it is ("dead jobs are in garbage").
func parseStateFlag(fs *flag.FlagSet, s string) (hopper.JobState, error) {
	st, err := store.ParseState(s)
	if err == nil {
		return st, nil
	}
	if ours, ok := otherNames[s]; ok {
		return "", badUsage(fs, "--state: %s; %s jobs are in %s", errText(err), s, ours)
	}
	return "", badUsage(fs, "--state: %s", errText(err))
}
