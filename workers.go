package hopper

import "github.com/hopperq/hopper/store"

// WorkerInfo describes a live worker process as Inspector.ListWorkers lists it:
// its ID, host, PID, queues, pool size, start and heartbeat times and the
// jobs it runs.
type WorkerInfo = store.WorkerInfo

// RunningJob is a job a worker process is running.
type RunningJob = store.RunningJob
