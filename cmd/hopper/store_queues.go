package main

import (
	"context"
	"errors"
	"flag"

	"github.com/hopperq/hopper"
)

// queueRefused returns err as bad usage of the command of fs when it wraps
// hopper.ErrInvalidQueue: the store refused a queue name the command was
// given, bad input as much as a name store.ValidateQueue refuses. A name
// that rule takes the store may still refuse: a partition ("mail~1") of a
// queue that is not partitioned or has fewer partitions, or a partitioned
// queue as a whole where the operation needs one partition. what names
// the flag ("--queue"), or is empty for the command's arguments. Any other
// error is returned as it is: a failure while running.
func queueRefused(fs *flag.FlagSet, what string, err error) error {
	if !errors.Is(err, hopper.ErrInvalidQueue) {
		return err
	}
	if what == "" {
		return badUsage(fs, "%s", errText(err))
	}
	return badUsage(fs, "%s: %s", what, errText(err))
}

// checkStoreQueues asks the store whether it takes each of queues, before
// a command acts on any of them, by reading the queue's stats (which the
// store refuses for a name it refuses everywhere: queueRefused). what is
// as for queueRefused.
func checkStoreQueues(ctx context.Context, fs *flag.FlagSet, ins *hopper.Inspector, what string, queues ...string) error {
	for _, q := range queues {
		if _, err := ins.GetQueueStats(ctx, q); err != nil {
			return queueRefused(fs, what, err)
		}
	}
	return nil
}
