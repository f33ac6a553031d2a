package hopper

import "github.com/hopperq/hopper/store"

// Replace is store.Replace.
type Replace = store.Replace

// The Replace flags (store.Replace).
const (
	ReplaceArgs  = store.ReplaceArgs
	ReplaceRunAt = store.ReplaceRunAt
)
