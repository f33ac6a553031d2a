package redisstore

// ClassicWakeUps makes s publish and hear its wake-ups on the classic
// channels only, as before shard channels (notify_sharded.go): the
// baseline of the latency measure. Call it before any use of s.
func ClassicWakeUps(s *Store) { s.shardPub = false }
