package redisstore

// Key layout. Every key of queue q carries the hash tag {<prefix>:q}, so a
// script only ever touches one slot and a Redis Cluster spreads queues over
// its shards. Store-wide keys carry {<prefix>}. Prefixes cannot hold braces
// or colons and queue names only letters, digits, '_', '.' and '-', so no
// two (prefix, queue) pairs share a tag and a tag never ends early.
//
//	{p:q}:j   hash    job ID -> "enqueuedMs," + envelope (envelope.go)
//	{p:q}:r   list    ready job IDs of priority 0, claimed from the left (FIFO)
//	{p:q}:r:N list    ready job IDs of priority N (-3 to 3 but 0), claimed
//	                  before lower levels (lua/lib_prio.lua)
//	{p:q}:p   zset    pending job ID -> due ms
//	{p:q}:u   zset    unack "ID|token" -> lease deadline ms, and a sentinel
//	                  (see below)
//	{p:q}:y   zset    retry job ID -> due ms
//	{p:q}:g   zset    garbage job ID -> finished ms
//	{p:q}:d   zset    done job ID -> finished ms
//	{p:q}:dx  zset    done job ID -> expiry ms
//	{p:q}:a   hash    job ID -> "attempt,claimedMs,token,readyMs" (jobs that
//	                  were ever claimed or promoted), and a sentinel
//	{p:q}:e   hash    job ID -> error history (framed msgpack records)
//	{p:q}:o   hash    job ID -> result of a done job
//	{p:q}:k   hash    unique lock field -> "holderID,untilMs"
//	{p:q}:ex  hash    job ID -> "ownRetentionMs,uniqueLockField" (jobs enqueued
//	                  with a retention or a unique key of their own)
//	{p:q}:x   set     IDs of cancelled jobs
//	{p:q}:c   hash    queue config (paused, maxrun, rate, period, ret, ev),
//	                  the priority levels ever used (pm),
//	                  the claims the rate limit counts (rs), the end of a
//	                  handler's hold (hold)
//	{p:q}:rl  list    the rate limit's log: "ms:count" per claim call
//	                  (lua/lib_rate.lua)
//	{p:q}:n   string  fencing token counter
//	{p:q}:t   hash    "d<minute>"/"f<minute>" -> acks/failures that minute
//	{p:q}:pt  hash    periodic schedule name -> last tick ms
//	{p:q}:ev  stream  the queue's events, one entry per script call
//	                  (lib_events.lua), IDs "1-0", "1-1", ...
//	{p:q}:pg  hash    job ID -> progress reported (progress.go)
//	{p:q}:wj  set     IDs of jobs a WaitJob call waits for
//	{p:q}:wm  set     IDs of workflow tasks' jobs released into the queue
//	{p:q}:wd  hash    job ID -> a workflow task's end not yet delivered
//	{p:q}:wq  zset    job ID -> when a sweeper may deliver its record
//	{p:q}:ki:<kind>  zset  job ID -> enqueue ms, with QueueConfig.KindIndex
//	                  (lua/lib_kidx.lua)
//	{p:q}:kis set     the kinds indexed
//
//	{p:wf:<id>}:m, s, r, i, d, p, o, rel   one workflow's record
//	                  (lua/lib_wfgraph.lua)
//	{p:~wf}:all, running, succeeded, failed, cancelled, exp, ids, chk
//	                  the workflow index (workflow_index.go)
//
//	{p}:queues     set   queue names (a partitioned queue's partitions)
//	{p}:parts      hash  partitioned queue -> partition count (partition.go)
//	{p}:workers    zset  worker ID -> expiry ms
//	{p}:w:<id>     string "heartbeatMs," + msgpack WorkerInfo, with a TTL
//	{p}:schedules  hash  "<queue>:<name>" -> msgpack ScheduleInfo
//	{p}:sdefs      hash  "<queue>:<name>" -> msgpack StoredSchedule
//	{p}:sver       string the stored schedules' version
//
// Wake-ups are not keys: scripts PUBLISH the queue's name on the channels
// "<prefix>:ready" and "<prefix>:sched" (notify.go), and on "<prefix>:ev"
// and "<prefix>:done" for event readers and job waiters (events.go,
// wait_job.go).

// Sentinels. The unack set and the attempt info hash change with every
// claim and ack, and hold about as many entries as jobs run at once: small
// enough for Redis to keep them as listpacks, where each insert and lookup
// scans and reallocates the whole structure. Registering a queue adds an
// entry to each that no job can have (an ID has no spaces) and that is too
// long for a listpack, so Redis keeps them as a skiplist and a hash table
// for good: claim plus ack cost about a quarter fewer instructions in a
// steady 32-job drain. The unack sentinel has the score +inf; counts and
// listings leave it out with '(inf' ranges, and earliest ignores it.
const (
	sentinelMember = " sentinel: keeps this sorted set out of listpack encoding (redisstore keys.go) "
	sentinelField  = " sentinel"
	sentinelValue  = " keeps this hash out of listpack encoding (redisstore keys.go), any value over 64 bytes "
)

// queueKeys holds every key of one queue, built once per queue name, and
// the KEYS lists of the scripts in the order the scripts expect them.
type queueKeys struct {
	name, tag string

	jobs, ready, pending, unack, retry, garbage, done, doneExp string
	att, errs, results, locks, extras, cancelled, conf, tokens string
	tput, ticks, events, progress, waited, rateLog, durations  string
	wfTasks, wfDone, wfDue                                     string

	enqueueKeys, plainKeys, claimKeys, finishKeys, extendKeys []string
	maintainKeys, waitKeys                                    []string
	getKeys, statsKeys, configKeys, cancelKeys                []string
}

func newQueueKeys(prefix, queue string) *queueKeys {
	return newQueueKeysTag(queue, prefix+":"+queue)
}

// newQueueKeysTag builds the keys of queue under the hash tag {tag}: the
// queue's own name, or a partition's salted name (partition.go).
func newQueueKeysTag(queue, tag string) *queueKeys {
	tag = "{" + tag + "}:"
	k := &queueKeys{
		name:      queue,
		tag:       tag,
		jobs:      tag + "j",
		ready:     tag + "r",
		pending:   tag + "p",
		unack:     tag + "u",
		retry:     tag + "y",
		garbage:   tag + "g",
		done:      tag + "d",
		doneExp:   tag + "dx",
		att:       tag + "a",
		errs:      tag + "e",
		results:   tag + "o",
		locks:     tag + "k",
		extras:    tag + "ex",
		cancelled: tag + "x",
		conf:      tag + "c",
		tokens:    tag + "n",
		tput:      tag + "t",
		ticks:     tag + "pt",
		events:    tag + "ev",
		progress:  tag + "pg",
		waited:    tag + "wj",
		wfTasks:   tag + "wm",
		wfDone:    tag + "wd",
		wfDue:     tag + "wq",
		rateLog:   tag + "rl",
		durations: tag + "du",
	}
	wf := []string{k.wfTasks, k.wfDone, k.wfDue, k.tokens}
	k.enqueueKeys = []string{k.jobs, k.ready, k.pending, k.locks, k.extras, k.ticks, k.att, k.conf, k.events,
		k.retry, k.unack, k.garbage, k.done}
	k.plainKeys = []string{k.jobs, k.ready, k.pending, k.conf, k.events}
	k.claimKeys = []string{k.ready, k.jobs, k.unack, k.att, k.conf, k.tokens, k.errs, k.events, k.rateLog}
	k.finishKeys = []string{k.unack, k.jobs, k.att, k.errs, k.results, k.locks, k.extras, k.cancelled,
		k.ready, k.pending, k.retry, k.garbage, k.done, k.doneExp, k.conf, k.tput, k.events, k.waited,
		k.progress}
	k.finishKeys = append(k.finishKeys, wf...)
	k.extendKeys = []string{k.unack, k.cancelled, k.jobs, k.att, k.conf, k.events, k.progress}
	k.maintainKeys = []string{k.pending, k.retry, k.ready, k.unack, k.jobs, k.att, k.errs, k.garbage,
		k.done, k.doneExp, k.results, k.locks, k.extras, k.cancelled, k.tput, k.conf, k.events, k.waited,
		k.progress}
	k.maintainKeys = append(k.maintainKeys, wf...)
	k.waitKeys = []string{k.jobs, k.garbage, k.done, k.waited}
	k.getKeys = []string{k.jobs, k.pending, k.retry, k.garbage, k.done, k.unack, k.att, k.errs, k.results,
		k.cancelled, k.progress}
	k.statsKeys = []string{k.ready, k.pending, k.unack, k.retry, k.garbage, k.done, k.conf, k.jobs, k.att,
		k.rateLog}
	k.configKeys = []string{k.conf, k.rateLog}
	k.cancelKeys = []string{k.jobs, k.pending, k.retry, k.ready, k.unack, k.att, k.garbage, k.done,
		k.cancelled, k.errs, k.locks, k.extras, k.conf, k.events, k.waited}
	k.cancelKeys = append(k.cancelKeys, wf...)
	return k
}

// all returns every fixed key of the queue (for tests and tooling).
func (k *queueKeys) all() []string {
	return []string{k.jobs, k.ready, k.pending, k.unack, k.retry, k.garbage, k.done, k.doneExp,
		k.att, k.errs, k.results, k.locks, k.extras, k.cancelled, k.conf, k.tokens, k.tput,
		k.ticks, k.events, k.progress, k.waited, k.rateLog}
}

// stateKey returns the container of jobs in state st: the ready list or a
// sorted set.
func (k *queueKeys) stateKey(st string) string {
	switch st {
	case "pending":
		return k.pending
	case "ready":
		return k.ready
	case "unack":
		return k.unack
	case "retry":
		return k.retry
	case "garbage":
		return k.garbage
	case "done":
		return k.done
	}
	return ""
}

// globalKeys are the store-wide keys.
type globalKeys struct {
	tag, queues, workers, schedules string
	// stored holds the stored schedules and storedVer their version
	// (stored_schedules.go).
	stored, storedVer string
}

func newGlobalKeys(prefix string) globalKeys {
	tag := "{" + prefix + "}:"
	return globalKeys{tag: tag, queues: tag + "queues", workers: tag + "workers", schedules: tag + "schedules",
		stored: tag + "sdefs", storedVer: tag + "sver"}
}

// worker returns the key of one worker's record.
func (g globalKeys) worker(id string) string { return g.tag + "w:" + id }
