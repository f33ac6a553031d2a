package redisstore

import (
	"strings"
	"sync/atomic"
)

// The key layout, defined once: keyTable lists every key hopper keeps, and
// from it come the KEYS of every script (a script declares the keys its
// Lua touches by name, lua.go), the Go code's queueKeys and LAYOUT.md
// (TestLayoutDoc keeps it current).
//
// Every key of queue q carries the hash tag {<prefix>:q}, so a script only
// ever touches one slot and a Redis Cluster spreads queues over its shards.
// A workflow's keys carry {<prefix>:wf:<id>}, the workflow index's
// {<prefix>:~wf}, store-wide keys {<prefix>}. Prefixes cannot hold braces
// or colons and queue names only letters, digits, '_', '.' and '-', so no
// two (prefix, queue) pairs share a tag and a tag never ends early.

// family says which hash tag a key carries.
type family uint8

const (
	famQueue    family = iota // {<prefix>:<queue>}:<suffix>
	famWorkflow               // {<prefix>:wf:<id>}:<suffix>
	famIndex                  // {<prefix>:~wf}:<suffix>
	famGlobal                 // {<prefix>}:<suffix>
	famWorker                 // {<prefix>}:w:<worker ID>
	numFamilies
)

// keyDef is one key of the layout.
type keyDef struct {
	name   string // how Lua names it: K.<name>
	fam    family
	suffix string // after the tag
	typ    string // Redis type
	doc    string
}

// keyTable is the layout. A queue's keys come first, in the order of the
// KEYS of every queue script.
var keyTable = []keyDef{
	{"jobs", famQueue, "j", "hash", "job ID -> \"enqueuedMs,\" + envelope (envelope.go)"},
	{"ready", famQueue, "r", "list", "ready job IDs of priority 0 (and of every priority while the queue has no levels), claimed from the left"},
	{"ready_p3", famQueue, "r:3", "list", "ready job IDs of priority 3, claimed before lower levels (lua/ready/prio.lua)"},
	{"ready_p2", famQueue, "r:2", "list", "ready job IDs of priority 2"},
	{"ready_p1", famQueue, "r:1", "list", "ready job IDs of priority 1"},
	{"ready_n1", famQueue, "r:-1", "list", "ready job IDs of priority -1"},
	{"ready_n2", famQueue, "r:-2", "list", "ready job IDs of priority -2"},
	{"ready_n3", famQueue, "r:-3", "list", "ready job IDs of priority -3"},
	{"pending", famQueue, "p", "zset", "pending job ID -> due ms (µs as decimals)"},
	{"unack", famQueue, "u", "zset", "unack \"ID|token\" -> lease deadline ms, and a sentinel (sentinelMember)"},
	{"retry", famQueue, "y", "zset", "retry job ID -> due ms"},
	{"garbage", famQueue, "g", "zset", "garbage job ID -> finished ms"},
	{"done", famQueue, "d", "zset", "done job ID -> finished ms"},
	{"done_exp", famQueue, "dx", "zset", "done job ID -> expiry ms"},
	{"att", famQueue, "a", "hash", "job ID -> \"attempt,claimedMs,token,readyMs\" (jobs ever claimed or promoted), and a sentinel"},
	{"errs", famQueue, "e", "hash", "job ID -> error history (framed msgpack records, lua/errors.lua)"},
	{"results", famQueue, "o", "hash", "job ID -> result of a done job"},
	{"locks", famQueue, "k", "hash", "unique lock field -> \"holderID,untilMs\" (lua/unique.lua)"},
	{"extras", famQueue, "ex", "hash", "job ID -> \",uniqueLockField\" of a job with a unique key"},
	{"cancelled", famQueue, "x", "set", "IDs of cancelled jobs"},
	{"conf", famQueue, "c", "hash", "the queue's settings as SetQueueConfig gave them, which QueueStats reads: paused, maxrun, rate, period, ret, ev, gmax, grate, gperiod, ki, rsm, rb, gsm, gb (lua/config.lua)"},
	{"marks", famQueue, "m", "hash", "what the scripts read of the queue, in one HMGET (lua.go): a copy of the settings with the rate terms derived from them (rwin, riv, rtol, gwin, giv, gtol, rg, rlead, glead), and what they keep: sh its shape, pm priority levels used, gv 'l' once the groups' ready jobs go to their lists and gn how many they hold (lua/groups/store.lua), gs and gf layout 1's group order counters, hold, lw, sw, sa, evw, evr, evs, evh, evg (events.lua), rs, rtat, kib, gwc"},
	{"rate_log", famQueue, "rl", "list", "the rate limit's log: \"ms:count\" per claim call, each counted for the period and its guard (lua/limits/on.lua)"},
	{"tokens", famQueue, "n", "string", "fencing token counter"},
	{"tput", famQueue, "t", "hash", "\"d<minute>\"/\"f<minute>\" -> acks/failures that minute, depth samples (lua/throughput.lua)"},
	{"ticks", famQueue, "pt", "hash", "periodic schedule name -> last tick ms"},
	{"events", famQueue, "ev", "stream", "the queue's events, one entry per script call (lua/events.lua), IDs \"1-0\", \"1-1\", ..."},
	{"progress", famQueue, "pg", "hash", "job ID -> progress reported (progress.go)"},
	{"waited", famQueue, "wj", "set", "IDs of jobs a WaitJob call waits for (lua/waiters.lua)"},
	{"wf_tasks", famQueue, "wm", "set", "IDs of workflow tasks' jobs released into the queue, kept until their workflow is dropped at the end of its retention (lua/wf/, workflow_maintain.go)"},
	{"wf_done", famQueue, "wd", "hash", "job ID -> a workflow task's end not yet delivered"},
	{"wf_due", famQueue, "wq", "zset", "job ID -> when a sweeper may deliver its record"},
	{"durations", famQueue, "du", "hash", "\"<hour>|<bucket>|<kind>\" -> handler durations counted (durations.go)"},
	{"kinds", famQueue, "ki", "zset", "the kind index, with QueueConfig.KindIndex: \"<kind>\\n<enqueuedMs, 13 digits><ID>\", score 0 (lua/kidx/on.lua)"},
	{"g_rot", famQueue, "gq", "list", "groups due a turn, '' for the ungrouped jobs; each at most once (lua/ready/group.lua)"},
	{"g_inrot", famQueue, "ga", "set", "the members of g_rot"},
	{"g_ready", famQueue, "gz", "zset", "layout 1's grouped ready jobs, read until empty: \"<group>\\0<order, 13 chars><ID>\", score 0, a group's first in first out; the root of the groups' lists (keyFamilies)"},
	{"g_known", famQueue, "gk", "set", "groups that may have ready jobs"},
	{"g_running", famQueue, "gr", "hash", "group -> its jobs in unack, kept while the queue has caps"},
	{"g_caps", famQueue, "gl", "hash", "group -> its own cap (store.Groups.SetGroupLimit)"},
	{"g_holds", famQueue, "gh", "zset", "group -> when its hold ends"},
	{"g_rate", famQueue, "gw", "hash", "group -> its rate limit's log, \"<sum>|ms:count ...\" entries joined by ' ', or in the smooth mode \"~<µs>\", its pace's next slot (lua/groups/rate.lua)"},
	{"lean", famQueue, "ln", "string", "present while the queue's enqueues of plain jobs due now may skip its marks and TIME: it has no shape and its steps write no events (lua/lean.lua); it expires at leanUntilMs, so that its PTTL gives the store's clock"},

	{"wf_meta", famWorkflow, "m", "hash", "the workflow's meta: id, name, st, cx, cr, en, ret, nt, open, bad, ist, c_<state> (lua/wfgraph.lua)"},
	{"wf_states", famWorkflow, "s", "hash", "task -> its state, last seq and dependents"},
	{"wf_rem", famWorkflow, "r", "hash", "task -> dependencies not yet satisfied"},
	{"wf_info", famWorkflow, "i", "hash", "task -> \"queue\\nkind\\nallowFailure\\nanyOutcome\\naddedBy\\norder\""},
	{"wf_deps", famWorkflow, "d", "hash", "task -> dependencies, \"\\n\"-joined"},
	{"wf_payloads", famWorkflow, "p", "hash", "task -> \"due|envelope\" of its job until released"},
	{"wf_results", famWorkflow, "o", "hash", "task -> result"},
	{"wf_rel", famWorkflow, "rel", "set", "tasks being released (enqueued into their queue, not yet confirmed)"},

	{"wfi_all", famIndex, "all", "zset", "workflow ID -> created ms (workflow_keys.go)"},
	{"wfi_running", famIndex, "running", "zset", "running workflow ID -> created ms"},
	{"wfi_succeeded", famIndex, "succeeded", "zset", "succeeded workflow ID -> created ms"},
	{"wfi_failed", famIndex, "failed", "zset", "failed workflow ID -> created ms"},
	{"wfi_cancelled", famIndex, "cancelled", "zset", "cancelled workflow ID -> created ms"},
	{"wfi_exp", famIndex, "exp", "zset", "ended workflow ID -> when its retention ends"},
	{"wfi_ids", famIndex, "ids", "zset", "workflow ID, score 0: lexical order, for ID prefix search"},
	{"wfi_chk", famIndex, "chk", "zset", "workflow ID -> when a sweeper looks at it: an older release's marks, read and no longer written (wfi_steps)"},
	{"wfi_steps", famIndex, "steps", "zset", "a step's mark \"<workflow ID>~<task>\" (the first task it left being released; \"+\" for a creation) -> when a sweeper looks at the workflow, unless the step's process takes the mark out first (workflow.go)"},

	{"queues", famGlobal, "queues", "set", "queue names (a partitioned queue's partitions)"},
	{"parts", famGlobal, "parts", "hash", "partitioned queue -> partition count (partition.go)"},
	{"workers", famGlobal, "workers", "zset", "worker ID -> expiry ms"},
	{"schedules", famGlobal, "schedules", "hash", "\"<queue>:<name>\" -> msgpack ScheduleInfo"},
	{"sdefs", famGlobal, "sdefs", "hash", "\"<queue>:<name>\" -> msgpack StoredSchedule"},
	{"sver", famGlobal, "sver", "string", "the stored schedules' version"},
	{"layout", famGlobal, "layout", "string", "the layout version of the data under the prefix, decimal (LayoutVersion; absent before v0.1.0: layout 0; layout.go)"},
	{"lost", famGlobal, "lost", "string", "the data's mark: written by a store's check when missing, and by a store that finds it gone (Redis lost its data under running processes), \"<Unix ms> <claimer>\"; a running store that sees it change registers its queues again (layout_restore.go)"},
	{"layout_redo", famGlobal, "layoutredo", "string", "present after a migration forced while workers of an older release were alive: the layout of the first step to run again, decimal (layout_migrate.go)"},
	{"sruns", famGlobal, "sr:", "list", "sr:<len(queue)>:<queue>:<name>: the last runs of one schedule, msgpack, the latest first, at most 10 (schedule_runs.go)"},
	{"worker", famWorker, "w:", "string", "\"heartbeatMs,\" + msgpack WorkerInfo of one worker, with a TTL"},
	{"wcmd", famWorker, "wc:", "string", "a command waiting for one worker (quiet or stop), with a TTL (worker_control.go)"},
}

// keyFamily is a family of keys that a script names from a key of
// keyTable, its root, as "<root>:<member>": their names are known only as
// the script runs (a group's list is named after the group), so they
// cannot be in KEYS; they carry the root's hash tag, so its slot. A
// script may touch the keys of a family whose root it declares (the key
// check allows them, keycheck.go).
type keyFamily struct {
	root   string // the name of its root in keyTable
	member string // what follows "<root>:"
	typ    string
	doc    string
}

// keyFamilies are the families of keys.
var keyFamilies = []keyFamily{
	{"g_ready", "<group>", "list", "a group's ready job IDs, first in first out, claimed from the left (layout 2; the marks' gn counts them, lua/groups/store.lua)"},
	{"unack", "<claimer>:<slot>", "string", "a Store's note of one of its last claims on the queue, \"seq|token|claimedMs|deadlineMs\", expiring with the lease: how a claim whose reply was lost is found (takeback.go)"},
	{"wf_states", "<attempt>", "hash", "the states of a large workflow's tasks staged by one EnqueueWorkflow call before its last step renames them into place, with a TTL (wf_stage.lua; workflow_stage.go); so the other staged keys below"},
	{"wf_rem", "<attempt>", "hash", "staged remaining counts"},
	{"wf_info", "<attempt>", "hash", "staged infos"},
	{"wf_deps", "<attempt>", "hash", "staged dependencies"},
	{"wf_payloads", "<attempt>", "hash", "staged payloads"},
	{"wf_rel", "<attempt>", "set", "staged tasks being released"},
}

// keyIndex maps a key's name to its index in keyTable.
var keyIndex = func() map[string]int {
	m := make(map[string]int, len(keyTable))
	for i, d := range keyTable {
		if _, dup := m[d.name]; dup {
			panic("redisstore: key " + d.name + " defined twice")
		}
		m[d.name] = i
	}
	return m
}()

// numQueueKeys is how many keys a queue has: the first entries of
// keyTable.
var numQueueKeys = func() int {
	n := 0
	for n < len(keyTable) && keyTable[n].fam == famQueue {
		n++
	}
	return n
}()

// Sentinels. The unack set and the attempt info hash change with every
// claim and ack, and hold about as many entries as jobs run at once: small
// enough for Redis to keep them as listpacks, where each insert and lookup
// scans and reallocates the whole structure. Registering a queue adds an
// entry to each that no job can have (an ID has no spaces) and that is too
// long for a listpack, so Redis keeps them as a skiplist and a hash table
// for good: claim plus ack cost about a quarter fewer instructions in a
// steady 32-job drain. The unack sentinel has the score +inf; counts and
// listings leave it out with '(inf' ranges, and earliest ignores it. The
// marks hash gets the hash's sentinel too: every script reads a dozen or
// more of its thirty-odd fields in one HMGET, each field a scan of the
// listpack (a grouped queue's drain, 32 jobs a claim, 1.4 % fewer
// instructions a job; a plain one's 0.2 %), for about 1.8 KB more a
// queue (2,244 bytes against 432 for 30 fields).
const (
	sentinelMember = " sentinel: keeps this sorted set out of listpack encoding (redisstore keys.go) "
	sentinelField  = " sentinel"
	sentinelValue  = " keeps this hash out of listpack encoding (redisstore keys.go), any value over 64 bytes "
)

// queueKeys holds every key of one queue, built once per queue name, and
// the KEYS of each script for it (scriptKeys).
type queueKeys struct {
	name, tag string
	all       []string // keyTable's queue keys, in order

	jobs, ready, pending, unack, retry, garbage, done, doneExp string
	att, errs, results, locks, extras, cancelled, conf, marks  string
	tokens, tput, ticks, events, progress, waited, rateLog     string
	durations, wfTasks, wfDone, wfDue                          string

	byScript scriptKeyCache
	// lean says whether a lean way served the queue at the last call that
	// could tell: its lean mark (lua/lean.lua) was set, or, for a queue
	// with a shape, its variant's ready slot serves that shape lean
	// (lua/ready/plain.lua: ready_lean). True when an enqueue that could
	// take the lean way (evalCall.leanWay), a finish or a claim took it,
	// or a finish's fast way said one would serve; false when a script
	// refused a short call of the queue (evalCall.short), or a claim that
	// asked for the lean way went the long way. While it is true, its
	// claims ask for the lean way (claim.go), its plain acks go as pairs
	// (finish.go), and, for a queue of no shape, its short calls go with
	// their lead keys alone. False until the store's first such call
	// returns.
	lean atomic.Bool
}

func newQueueKeys(prefix, queue string) *queueKeys {
	return newQueueKeysTag(queue, prefix+":"+queue)
}

// newQueueKeysTag builds the keys of queue under the hash tag {tag}: the
// queue's own name, or a partition's salted name (partition.go).
func newQueueKeysTag(queue, tag string) *queueKeys {
	tag = "{" + tag + "}:"
	k := &queueKeys{name: queue, tag: tag, all: make([]string, numQueueKeys)}
	for i := range numQueueKeys {
		k.all[i] = tag + keyTable[i].suffix
	}
	get := func(name string) string { return k.all[keyIndex[name]] }
	k.jobs, k.ready, k.pending, k.unack = get("jobs"), get("ready"), get("pending"), get("unack")
	k.retry, k.garbage, k.done, k.doneExp = get("retry"), get("garbage"), get("done"), get("done_exp")
	k.att, k.errs, k.results, k.locks = get("att"), get("errs"), get("results"), get("locks")
	k.extras, k.cancelled, k.conf, k.marks = get("extras"), get("cancelled"), get("conf"), get("marks")
	k.tokens, k.tput, k.ticks, k.events = get("tokens"), get("tput"), get("ticks"), get("events")
	k.progress, k.waited, k.rateLog, k.durations = get("progress"), get("waited"), get("rate_log"), get("durations")
	k.wfTasks, k.wfDone, k.wfDue = get("wf_tasks"), get("wf_done"), get("wf_due")
	return k
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

// workerCmd returns the key of the command waiting for one worker.
func (g globalKeys) workerCmd(id string) string { return g.tag + "wc:" + id }

// familyTag returns the tag part "{...}:" of family f's keys for instance
// inst (a queue's tag is in queueKeys; a workflow's ID; unused otherwise).
func familyTag(prefix string, f family, inst string) string {
	switch f {
	case famWorkflow:
		return "{" + prefix + ":wf:" + inst + "}:"
	case famIndex:
		return "{" + prefix + ":~wf}:"
	}
	return "{" + prefix + "}:"
}

// layoutDoc renders keyTable as Markdown (LAYOUT.md).
func layoutDoc() string {
	var b strings.Builder
	b.WriteString("# redisstore key layout\n\n")
	b.WriteString("Generated from `keyTable` in keys.go by `go test -run TestLayoutDoc -update`; do not edit.\n\n")
	b.WriteString("Every script declares the keys it touches (`--- @keys` in lua/); the store passes them in KEYS, in this order.\n")
	titles := [numFamilies]string{
		famQueue:    "## A queue's keys: `{<prefix>:<queue>}:<suffix>`",
		famWorkflow: "## A workflow's keys: `{<prefix>:wf:<id>}:<suffix>`",
		famIndex:    "## The workflow index: `{<prefix>:~wf}:<suffix>`",
		famGlobal:   "## Store-wide keys: `{<prefix>}:<suffix>`",
		famWorker:   "## A worker's keys: `{<prefix>}:<suffix><worker ID>`",
	}
	for f := range numFamilies {
		b.WriteString("\n" + titles[f] + "\n\n| name | suffix | type | holds |\n|---|---|---|---|\n")
		for _, d := range keyTable {
			if d.fam == f {
				b.WriteString("| " + d.name + " | `" + d.suffix + "` | " + d.typ + " | " + strings.ReplaceAll(d.doc, "|", "\\|") + " |\n")
			}
		}
	}
	b.WriteString("\n## Key families\n\nKeys a script names as it runs, `<root>:<member>`: it declares the root, and the key check lets it touch the family (keycheck.go).\n\n| root | key | type | holds |\n|---|---|---|---|\n")
	for _, f := range keyFamilies {
		b.WriteString("| " + f.root + " | `" + keyTable[keyIndex[f.root]].suffix + ":" + f.member + "` | " + f.typ + " | " + strings.ReplaceAll(f.doc, "|", "\\|") + " |\n")
	}
	b.WriteString("\n## The keys of each script\n\nIn the variant that serves every queue (a plain queue's take fewer), in the order of KEYS: the lead keys, which a call may be sent alone, then keyTable's, then the tail keys, which a call may leave out (lua.go).\n\n| script | KEYS |\n|---|---|\n")
	for _, name := range scriptFiles() {
		var names []string
		for _, k := range fullScript(name).keys {
			names = append(names, keyTable[k].name)
		}
		b.WriteString("| " + name + " | " + strings.Join(names, " ") + " |\n")
	}
	b.WriteString("\nWake-ups are not keys: scripts PUBLISH the queue's name on the channels `<prefix>:ready` and `<prefix>:sched` (notify.go), and on `<prefix>:ev` and `<prefix>:done` for event readers and job waiters (events.go, wait_job.go). On a Redis Cluster, ready, sched and ev go with SPUBLISH on the queue's shard channels instead, `<prefix>:{<prefix>:<queue>}:ready` and so on (notify_sharded.go).\n")
	return b.String()
}
