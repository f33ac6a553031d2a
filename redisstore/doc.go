// Package redisstore is the Redis implementation of store.Store: every job
// transition is one Lua script (lua/*.lua, embedded), every key of a queue
// shares one hash tag, and idle workers block on Redis instead of polling.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"}) // or a failover or cluster client
//	store := redisstore.New(rdb, nil)
//
// # Servers
//
// Redis 7.0 or newer, as a single server, behind Sentinel or as a Redis
// Cluster. Before its first operation a Store checks the server once (see
// Store.Check): older servers are refused with ErrUnsupportedServer, and a
// maxmemory-policy other than noeviction is logged as a warning, because an
// evicted key loses jobs.
//
// # Keys
//
// Every key of queue q starts with the hash tag {<prefix>:q}, so each
// script touches one slot and a cluster spreads queues over its shards; the
// store-wide registries (queues, workers, schedules) use {<prefix>}. Every
// key a script touches is passed in KEYS: each Lua file declares the keys
// it touches, by their names in one table (keys.go), from which the KEYS
// of every script and LAYOUT.md come; the package's tests run every script
// with a check that fails a command on any other key. A pending
// bench-sized job (20-byte ID, 77 bytes of args) takes about 210 to 230
// bytes of Redis memory: one hash field holding a compact msgpack envelope,
// and its ID in the ready list or pending set.
//
// # Partitioned queues
//
// One queue lives in one slot, so on a Cluster its work lands on one
// master. Config.Partitions splits a hot queue over several slots, picked
// so that the partitions fall into equal ranges of the slot space (and so
// onto different masters of a Cluster with evenly split slots). Each
// partition is a queue of its own named "<queue>~<i>"; a job goes to the
// partition of its group, unique key, schedule or ID, and a Claim of the
// queue takes from the partitions in turn, as a Kafka topic's partitions
// (River Pro's and Oban Pro's "partitioned" limits are hopper's groups).
// See Config.Partitions for what holds across partitions and what is
// refused.
//
// # Time
//
// Due times, lease deadlines and every recorded time come from Redis TIME
// inside the scripts: a job never runs before it is due and a lease never
// expires early, whatever the clients' clocks say. A delayed job's due time
// (Delay, RunAt, a Replace's) is kept to the microsecond, Delay counted
// from the server's TIME when it takes the call, so the job falls due as
// asked, not up to two milliseconds later. Promotions record it, and
// GetJob shows it, in whole milliseconds, rounded down as every recorded
// time (so a job's AttemptedAt is never before its RunAt). Other
// durations (leases, retry back-offs, holds, retention) are rounded up to
// the millisecond and counted from the next millisecond.
//
// # Costs
//
// Claim takes up to Max jobs in one script call with a constant number of
// Redis commands (LPOP with a count, multi-key HMGET, one ZADD, ...).
// Finish and Extend group their requests by queue: one script call per
// queue, all pipelined in one round trip. Enqueue does the same, and
// concurrent single-job Enqueue calls of one Store are merged into shared
// round trips while two are in flight (Config.NoCoalescing).
//
// The scripts are built from the modules of lua/ (lua.go), and the hot
// ones (enqueue, claim, finish, maintain) in one variant per shape of queue
// (priority levels, groups, limits, kind index): a plain queue runs code
// that holds nothing of the features it does not use.
//
// The scripts run as Redis functions: the start-up check loads on every
// master the libraries a plain queue's producers and workers call, one
// per script (FUNCTION LOAD, named after a hash of its source; any other
// script or variant is loaded on its first call), and each call is an
// FCALL. Every library a server holds costs each FCALL a little: Redis
// steps its Lua collector through them all. A script sent with EVALSHA
// defines all its helper functions anew on every call, about 40,000
// redis-server instructions; a function library defines them once, at
// load. See Config.NoFunctions for the plain-script fallback.
//
// One script runs as a plain script (EVALSHA) by design: the enqueue of
// one job due now into a plain queue whose events nobody reads
// (lua/enqueue_lean.lua), the call every app makes. It is a dozen lines
// with no helper to define, and plain scripts live in a Lua heap of
// their own, which holds little, where Redis's collector steps cost a
// call less than in the functions' heap: about 41,500 redis-server
// instructions a call against about 44,400 as a function (asynq's
// enqueue: about 42,400).
//
// # Waiting
//
// Scripts that make jobs claimable in a queue PUBLISH its name on the
// channel "<prefix>:ready", and those that move its earliest due time
// earlier on "<prefix>:sched". A Store holds one subscription to both for
// all its waiters and queues, so a job wakes every idle worker within a
// round trip, an idle worker sends nothing while it waits (a PING every few
// seconds keeps the connection checked), and a frozen process takes no
// wake-up away from the others. WaitReady and WaitSchedule return the
// queues that were signalled, and keep a signal that came while nobody
// waited for the next wait; when the subscription was lost and made again,
// every queue is signalled once, since messages published meanwhile are
// lost. On a Redis Cluster the scripts SPUBLISH on the queue's shard
// channel, "<prefix>:{<prefix>:<queue>}:ready" (and ":sched", ":ev"), so that a
// wake-up stays on the queue's master instead of crossing the cluster bus,
// and the Store subscribes to its queues' shard channels on their masters
// as well. See notify.go and notify_sharded.go.
//
// # Clusters and failover
//
// On a Redis Cluster, calls that touch several queues (Finish, Extend,
// Enqueue, event reads) go to each master in a pipeline of its own, all at
// once, so a master that is down or slow fails only the requests for its
// queues (pernode.go). A refused or broken connection, a timeout,
// CLUSTERDOWN, READONLY, LOADING, MOVED or ASK makes the client reload the
// cluster's layout at once instead of after go-redis's periodic reload
// (topology.go). Wake-ups are subscribed on two masters, and a subscription
// whose master fails moves to another, so no wake-up is lost with a shard
// (notify_cluster.go). Config.Replicas makes Enqueue, EnqueueWorkflow,
// AddTasks and Finish wait for replicas (Redis WAIT) so that what they
// acknowledged survives a failover (durable.go).
//
// # Events
//
// Each queue has a capped stream of its jobs' state changes,
// {<prefix>:q}:ev, written by the same script as the transition (see
// lib_events.lua for its format): one XADD per script call, whatever the
// number of jobs it moved. QueueConfig.EventsMaxLen sets the cap (default
// 1,000 entries, trimmed approximately as MAXLEN ~ does; negative turns
// events off). Entries are written while someone reads the queue's events:
// each ReadEvents keeps them written for a minute (events_interest.go); a
// queue nobody reads costs one comparison per script and keeps no
// stream, and a reader that comes back after such a gap is told it lost
// events. A reader
// blocked on the queue is told of new entries on "<prefix>:ev"; a job
// waited for (WatchJob) is announced on "<prefix>:done" when it ends.
//
// # Access control
//
// A Store needs no administrative rights: an ACL user limited to its
// Prefix and to the commands below is enough. For the default Prefix
// "hopper" (for another prefix, change both key patterns and the channel
// pattern: ~{myapp:* ~{myapp}:* &myapp:*):
//
//	ACL SETUSER hopper on >password resetkeys ~{hopper:* ~{hopper}:* resetchannels &hopper:* -@all +ping +info +config|get +function|load +fcall +script|load +evalsha +eval +time +pttl +multi +exec +subscribe +unsubscribe +publish +rpush +del +mget +smembers +sadd +srem +scard +smismember +sismember +hget +hset +hsetnx +hdel +hexists +hgetall +hmget +hincrby +hkeys +hlen +incr +incrby +get +set +lindex +llen +lpop +lpush +lrange +lrem +ltrim +zadd +zcard +zcount +zmscore +zrange +zrangebyscore +zrangebylex +zlexcount +zrevrange +zrem +zremrangebyscore +zscore +exists +xadd +xrange +xrevrange +hscan +unlink +memory|usage +rename +pexpire +persist
//
// The key patterns cover the keys of every queue ({hopper:<queue>}:...)
// and the store-wide ones ({hopper}:queues, workers, schedules and wait
// keys), the channel pattern the wake-up, event and job-end messages
// (hopper:ready, hopper:sched, hopper:ev, hopper:done); the scripts' own
// commands need a right too, since Redis checks the ACL for every command
// a script runs. A user without the channel pattern loses nothing (the
// scripts publish through pcall, and waiters poll too), but workers and
// waiters learn of new jobs and ends only at their next poll; hopper
// check reports the missing pattern.
//
//   - FUNCTION LOAD and FCALL run the scripts as functions (see
//     Config.NoFunctions); SCRIPT LOAD, EVALSHA and EVAL run them as plain
//     scripts, when functions are off, refused, or not loaded yet on a
//     node, and the one plain script, a lone enqueue's (above). Without
//     FUNCTION LOAD the Store logs a warning and runs plain scripts,
//     which costs Redis more CPU per call; without EVALSHA or EVAL (the
//     ACL's, or commands renamed away) it logs a warning once and sends
//     lone enqueues to the enqueue function, which costs Redis more CPU
//     per call too.
//   - PTTL reads the store's clock from a queue's lean mark when jobs due
//     now are enqueued (the key {hopper:<queue>}:ln). Without it the Store
//     logs a warning once and reads TIME and the queue's marks instead,
//     which costs Redis more CPU per enqueue.
//   - HSCAN and UNLINK serve only the kind index (QueueConfig.KindIndex):
//     indexing the jobs there when it is turned on, dropping it when it is
//     turned off.
//   - WAIT (+wait, not in the line above) serves only Config.Replicas:
//     add it to the user when you set Replicas, or Enqueue, the workflow
//     calls and Finish fail with ErrNoPerm (hopper check --replicas N says
//     so).
//   - RENAME, PEXPIRE and PERSIST (+rename +pexpire +persist) serve
//     EnqueueWorkflow of more than 250 tasks, whose first tasks are
//     staged in keys of their own, with a TTL, and renamed into place by
//     its last step; without them such a call fails with ErrNoPerm and
//     stores nothing. PEXPIRE and PERSIST also let the event stream of a
//     queue nobody reads any more expire; without them it is kept.
//   - MEMORY USAGE (+memory|usage) serves only
//     ServerInfo's estimate of each queue's memory (the dashboard's Redis
//     page); without it the page shows the nodes' INFO and says queue
//     memory could not be estimated.
//   - INFO and CONFIG GET only serve the start-up check (see Check):
//     without them the Store logs a warning that it could not check the
//     version or maxmemory-policy, and goes on. SCRIPT LOAD only saves an
//     EVAL on a plain script's first use. PING is for health checks (the hopper
//     command line sends one).
//   - On a Redis Cluster add +cluster|slots +command, on every node:
//     go-redis reads the slot map (without it every call fails with
//     ErrNoPerm) and the commands' key positions (without it go-redis
//     copes but logs "getting command info: NOPERM" again and again).
//     Add +spublish +ssubscribe +sunsubscribe too: wake-ups and event
//     notices then go on shard channels, served by the queue's own node
//     (see notify_sharded.go). Without them the Store falls back, with
//     nothing logged, to classic pub/sub, whose messages cross the
//     cluster bus: enqueue-to-start p99 about 40 ms instead of about 6
//     on a 3-master cluster.
//   - A user that lacks a right gets errors wrapping ErrNoPerm, which
//     Temporary reports as not temporary: an operator must fix the ACL.
//     One exception: Enqueue does not fail when it cannot add its queue
//     to the {hopper}:queues registry (it tries again on later calls);
//     Queues, and so a Scheduler that finds its queues there, does.
//
// TLS is the client's: set redis.Options.TLSConfig (ClusterOptions,
// FailoverOptions alike), with a client certificate when the server sets
// tls-auth-clients. The Store sends the same commands either way.
//
// # Errors
//
// Errors from Redis are returned wrapped ("redisstore: claim from ...: ")
// with the go-redis error kept in the chain, so errors.As and go-redis's
// redis.IsOOMError, redis.IsReadOnlyError, redis.IsLoadingError and
// redis.IsPermissionError see it.
package redisstore
