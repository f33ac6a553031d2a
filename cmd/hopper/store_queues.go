package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redisurl"
	"github.com/hopperq/hopper/internal/urlredact"
	"github.com/hopperq/hopper/store"
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

// queueKnown reports whether the store knows queue: it lists it (it has
// had jobs or settings: Inspector.ListQueues), or it is a partition of a
// queue the store partitions (store.Partitioner), which it may list only
// once the partition had a job.
func queueKnown(ctx context.Context, s hopper.Store, queue string) (bool, error) {
	queues, err := hopper.NewInspector(s).ListQueues(ctx)
	if err != nil || slices.Contains(queues, queue) {
		return err == nil, err
	}
	base, _, ok := store.SplitPartition(queue)
	p, partitions := store.As[store.Partitioner](s)
	if !ok || !partitions {
		return false, nil
	}
	parts, err := p.Partitions(ctx, base)
	return slices.Contains(parts, queue), err
}

// unknownQueue says on stderr that the store a command read has no queue
// of that name, and which store that was: a mistyped name, or a
// forgotten --redis (the default is localhost), would otherwise look like
// an empty queue.
func unknownQueue(a *app, command, queue string, sf *storeFlags) {
	fmt.Fprintf(a.stderr, "hopper %s: no queue named %s in the Redis at %s (--redis), key prefix %q (--redis-prefix): no jobs or settings yet; check the name, or --redis if you meant another Redis\n",
		command, queue, urlredact.Redact(redisurl.Normalize(sf.url)), sf.prefix)
}
