package redisstore

import (
	"context"
	"embed"

	"github.com/redis/go-redis/v9"
)

// The scripts live in lua/*.lua. Each is built from lua/lib_base.lua, the
// other lib_*.lua helper files it needs and its own file, in two forms
// (script, functions.go): a function library, loaded once per server with
// FUNCTION LOAD and called with FCALL, so that its helpers are defined
// once, at load; and a plain script for EVALSHA, which defines them anew
// on every call (Options.NoFunctions, or a server that refuses FUNCTION
// LOAD). Helpers are split so that a script holds only the functions it
// uses. Flags: write scripts are refused up front when the server is out
// of memory, so none stops half way; read-only scripts say no-writes; a
// script whose file starts with its own "#!lua flags=..." line gets those
// instead: claim, finish, extend and maintain say allow-oom, so that at
// maxmemory workers still drain the queues, which frees memory, while
// enqueue is refused.
//
//go:embed lua/*.lua
var luaFiles embed.FS

var (
	scriptEnqueue = newScript("enqueue", false, "prio", "group", "place", "att", "events", "kinds", "kidx", "state", "replace")
	scriptPlain   = newScript("enqueue_plain", false, "prio", "group", "place", "events", "kinds", "kidx")
	scriptClaim   = newScript("claim", false, "prio", "rate", "group", "att", "events", "kinds")
	scriptFinish  = newScript("finish", false, "prio", "group", "att", "errors", "unique", "throughput", "outcome", "events", "kinds", "kidx", "ends", "wf")
	// scriptFinishLocal is finish.lua applying workflow task ends in the
	// same step (lib_wflocal.lua): on one server, for batches with tasks.
	scriptFinishLocal = newScript("finish+local", false, "prio", "group", "att", "errors", "unique", "throughput", "outcome", "events",
		"kinds", "kidx", "ends", "wf", "place", "wfrel", "wfgraph", "wflocal")
	scriptExtend     = newScript("extend", false, "att", "events", "kinds")
	scriptMaintain   = newScript("maintain", false, "prio", "rate", "group", "att", "depth", "errors", "unique", "throughput", "member", "outcome", "events", "kinds", "kidx", "ends", "wf")
	scriptGetJob     = newScript("getjob", true, "att", "records", "state")
	scriptList       = newScript("list", true, "prio", "group", "member", "records", "att", "depth")
	scriptKindSearch = newScript("kind_search", true, "prio", "group", "kinds", "att", "state", "records", "depth")
	scriptStats      = newScript("stats", true, "prio", "group", "att", "depth", "rate")
	scriptConfig     = newScript("config", false, "prio", "group", "kinds", "kidx")
	scriptCancel     = newScript("cancel", false, "prio", "group", "att", "errors", "unique", "events", "kinds", "ends", "wf")
	scriptRequeue    = newScript("requeue", false, "prio", "group", "att", "events", "kinds", "wf")
	scriptDelete     = newScript("delete", false, "prio", "group", "unique", "att", "events", "kinds", "kidx", "ends", "wf")
	scriptHeartbeat  = newScript("heartbeat", false)
	scriptEvRead     = newScript("events_read", true)
	scriptEvArm      = newScript("events_arm", false)
	scriptWaitJob    = newScript("waitjob", false)
	scriptGroupLimit = newScript("group_limit", false, "prio", "group")
	scriptGroups     = newScript("groups", true, "prio", "group")
	scriptDurAdd     = newScript("dur_add", false)

	scriptWfCreate = newScript("wf_create", false, "wfgraph")
	// scriptWfCreateLocal is wf_create.lua enqueueing the first tasks in
	// the same step (lib_wflocal.lua): on one server.
	scriptWfCreateLocal = newScript("wf_create+local", false, "wfgraph", "prio", "group", "place", "events", "kinds", "kidx", "wfrel", "wf", "wflocal")
	scriptWfApply       = newScript("wf_apply", false, "wfgraph")
	scriptWfAdd         = newScript("wf_add", false, "wfgraph")
	scriptWfCancel      = newScript("wf_cancel", false, "wfgraph")
	scriptWfConfirm     = newScript("wf_confirm", false, "wfgraph")
	scriptWfDrop        = newScript("wf_drop", false, "wfgraph")
	scriptWfGet         = newScript("wf_get", true)
	scriptWfDue         = newScript("wf_due", true)
	scriptWfSynced      = newScript("wf_synced", false)
	scriptWfRelease     = newScript("wf_release", false, "prio", "group", "place", "events", "kinds", "kidx", "wfrel")
	scriptWfTake        = newScript("wf_take", false)
	scriptWfDone        = newScript("wf_done", false)
	scriptWfiSet        = newScript("wfi_set", false)
	scriptWfiDel        = newScript("wfi_del", false)
)

// allScripts lists every script, in the order newScript made them: the
// start-up check loads them all, and a server that lost one function gets
// them all again.
var allScripts []*script

// evalCall is one script call, possibly sent with others in a pipeline.
type evalCall struct {
	script *script
	keys   []string
	args   []any
	cmd    *redis.Cmd
}

// runAll sends calls in one round trip (one pipeline, after the commands
// pre adds; a single call without pre is sent on its own) and leaves each
// reply in its cmd. A call the server did not
// know the script of (a restarted or flushed server) did not run; it is
// sent again once the script is loaded (see call). Per-call errors stay in
// the cmds; the caller reads them.
func (s *Store) runAll(ctx context.Context, calls []*evalCall, pre func(redis.Pipeliner)) {
	if len(calls) == 1 && pre == nil {
		c := calls[0]
		c.cmd = s.call(ctx, s.rdb, c.script, c.keys, c.args...)
		s.observe(c.cmd.Err())
		return
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		s.runPerNode(ctx, cc, calls, pre)
		return
	}
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if pre != nil {
			pre(p)
		}
		for _, c := range calls {
			c.cmd = s.pipe(ctx, p, c.script, c.keys, c.args...)
		}
		return nil
	})
	for _, c := range calls {
		if notLoaded(c.cmd.Err()) {
			c.cmd = s.call(ctx, s.rdb, c.script, c.keys, c.args...)
		}
		s.observe(c.cmd.Err())
	}
}

// run runs one script call.
func (s *Store) run(ctx context.Context, sc *script, keys []string, args ...any) *redis.Cmd {
	cmd := s.call(ctx, s.rdb, sc, keys, args...)
	s.observe(cmd.Err())
	return cmd
}
