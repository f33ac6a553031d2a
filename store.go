package hopper

import "github.com/hopperq/hopper/store"

// Store is where jobs live: memstore.New for one process, redisstore.New
// for Redis. A Client, a Worker, a Scheduler and an Inspector each take
// one; they are safe to share. Writing a store of your own is described in
// package store, and storetest checks it.
type Store = store.Store
