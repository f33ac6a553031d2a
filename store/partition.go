package store

import (
	"context"
	"strconv"
)

// MaxPartitions bounds the partitions of one queue.
const MaxPartitions = 256

// PartitionName returns the name of partition i of queue: "<queue>~<i>".
// A store that partitions queues over hash slots (redisstore's
// Config.Partitions) keeps each partition as a queue of its own under this
// name: claimed jobs, the registry and the dashboard name the partition,
// and every operation that takes a queue accepts it. A store that does not
// partition treats it as an ordinary queue name.
func PartitionName(queue string, i int) string {
	return queue + "~" + strconv.Itoa(i)
}

// SplitPartition splits a partition name into its queue and index. ok is
// false when name has no partition suffix, or a malformed one (an index
// with a leading zero, or of MaxPartitions or more).
func SplitPartition(name string) (queue string, i int, ok bool) {
	for j := len(name) - 1; j > 0; j-- {
		c := name[j]
		if c >= '0' && c <= '9' {
			continue
		}
		if c != '~' || j == len(name)-1 || (name[j+1] == '0' && j+2 < len(name)) {
			return "", 0, false
		}
		n, err := strconv.Atoi(name[j+1:])
		if err != nil || n >= MaxPartitions {
			return "", 0, false
		}
		return name[:j], n, true
	}
	return "", 0, false
}

// Partitioner is implemented by stores that split a queue over partitions
// (redisstore with Config.Partitions). The Scheduler maintains each
// partition as a queue of its own, so that a signal from one partition
// costs one Maintain, not one per partition.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type Partitioner interface {
	// Partitions returns the names of queue's partitions, or nil when the
	// queue is not partitioned. Safe for concurrent use.
	Partitions(ctx context.Context, queue string) ([]string, error)
}
