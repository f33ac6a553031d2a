package hopper

import "github.com/hopperq/hopper/store"

// Store is store.Store.
type Store = store.Store
