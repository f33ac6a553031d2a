package hopper

import "github.com/hopperq/hopper/store"

// WorkerInfo is store.WorkerInfo.
type WorkerInfo = store.WorkerInfo
