package hopper

import "github.com/hopperq/hopper/store"

// QueueConfig is store.QueueConfig.
type QueueConfig = store.QueueConfig

// QueueStats is store.QueueStats.
type QueueStats = store.QueueStats

// ThroughputPoint is store.ThroughputPoint.
type ThroughputPoint = store.ThroughputPoint
