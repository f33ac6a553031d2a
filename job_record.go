package hopper

import "github.com/hopperq/hopper/store"

// JobRecord is store.JobRecord.
type JobRecord = store.JobRecord

// JobSpec is store.JobSpec.
type JobSpec = store.JobSpec
