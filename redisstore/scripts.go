package redisstore

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"
)

// The scripts of lua/ (lua.go), by the variants they are called in. The
// hot ones (enqueue, claim, finish, maintain) take the variant of their
// queue's shape, as the Store knows it (shapeCache), plus what the call's
// jobs need; a script that does not serve the queue's actual shape does
// nothing and says so, and the call goes again with the variant that does
// (sendShaped). The others take the variant that serves every shape.
//
// Flags: write scripts are refused up front when the server is out of
// memory, so none stops half way; read-only scripts say no-writes; claim,
// finish, extend and maintain say allow-oom, so that at maxmemory workers
// still drain the queues, which frees memory, while enqueue is refused.
// A script with allow-oom runs at maxmemory and its writes may take
// memory, so it carries it only when what it writes is small and bounded
// and what it does is needed to get out of maxmemory. The operators' too:
// delete frees memory (its writes are the deleted jobs' events and
// notices, fewer bytes than the jobs); cancel writes a few small entries
// (the error, the garbage and cancelled entries, an event) and sends the
// job to garbage, which maintain purges; config (pause, resume, settings)
// writes the queue's few settings, lets an operator stop a queue or
// shorten the retention, which frees memory, and at most indexes 2,000
// jobs' kinds when it turns the kind index on. heartbeat replaces a
// worker's one record and its score in the registry, no bigger each
// time: without it, workers' records expired at maxmemory, and the
// dashboard and Migrate saw no worker alive.

// full is the variant of the scripts that serve any queue: every slot's
// file that serves the most, and a workflow task's ends recorded.
var full = variant{shape: shapeAll, wf: "record"}

// script returns the variant of file that serves any queue (full), or the
// one variant of a script that has no slot.
func fullScript(file string) *script { return scriptFor(file, full) }

// preloadScripts builds the scripts the start-up check loads on a server
// that lacks them (loadLibraries), and a store that calls plain scripts
// loads at its check (checkNodeReads): those a worker of a plain queue calls
// to drain it and a producer to fill it, in the plain queue's variants.
// On a server that holds them (an earlier process loaded them) each is
// built on its first call. Every other script and variant is built and
// loaded on its first call (Store.call). A server keeps every library
// any process loaded in one Lua heap, and Redis 7.0 steps its collector
// through that heap every 50 calls of any function, so every library
// held makes every call dearer (docs/performance-log.md, "The functions' Lua
// heap", has the counts). A server at maxmemory refuses FUNCTION LOAD:
// these are there for workers to drain a plain queue; a variant first
// called then runs as a plain script (EVALSHA), which its allow-oom flag
// lets run.
var preloadScripts = sync.OnceFunc(func() {
	for _, c := range preloaded {
		scriptFor(c.file, c.v)
	}
})

// preloaded are the scripts preloadScripts builds, and their variants.
var preloaded = [...]scriptID{
	{"enqueue", variant{}}, {"claim", variant{}}, {"finish", variant{}}, {"maintain", variant{}},
	{"extend", full}, {"heartbeat", full}, {"dur_add", full}, {"wf_due", full},
}

// evalCall is one script call, possibly sent with others in a pipeline.
// A shaped call (file set) has its script and keys chosen when it is sent
// (sendShaped): the variant of file for the shape of its queue, with the
// slots vary names (its shape letters added to the queue's), its queue's
// keys (and workflow wf's, when set) and then extra; a lean one without
// its script's tail keys (lua.go), and then with no extra.
type evalCall struct {
	script *script
	keys   []string
	args   []any
	cmd    *redis.Cmd

	file  string
	queue string
	wf    string
	vary  variant
	extra []string
	// tailless says the script's path for this call touches none of its
	// tail keys, which are left out: Redis makes a Lua table of the KEYS
	// on every call, at about a thousand instructions a key.
	tailless bool
	// leanWay says the call may take the lean way (lua/lean.lua), which
	// runs PTTL: enqueue.go's leanRefused.
	leanWay bool
	// leanFile, when set, is the script a call cut to its lead keys goes
	// to instead of file's (cut, below), unless the server refused it
	// (Store.plainDenied): a plain script (lua.go: @eval) that does what
	// file's path for those keys does.
	leanFile string
	// short says the call's path may touch only its script's lead keys
	// (lua.go) while its queue's lean mark is set: it is sent them alone
	// to the variant of no shape while the store has seen the queue's
	// last such call take the lean way (queueKeys.lean). cut says it was.
	short, cut bool
	// via, when set, is the lease whose connection the call goes on (an
	// enqueue batcher's round trip): else the store's client.
	via *lease
	// once says go-redis must not send the call again once it may have
	// reached the server: a claim, whose lost reply the store takes back
	// itself (takeback.go).
	once bool
	// noResend says go-redis must not send the call again after a
	// timeout or the end of its context, when it may have run: an
	// enqueue, which sent again later could store anew a job that ran
	// and was deleted meanwhile. A call whose connection failed under it
	// (closed, reset: connFailed) goes again through the client, with
	// go-redis's retries (resendFailed). Without it, a round trip to a
	// frozen node (a stopped process, a link cut without a reset) waited
	// out the read timeout once and then each of go-redis's retries on
	// the same node, its three by default: 20 s at go-redis's default
	// read timeout of 5 s, and an enqueue batcher's flusher, whose round
	// trips have no deadline of their own, kept a Cluster's producers
	// off a shard that long after its replica took over.
	noResend bool
}

// queueCall returns a call of sc on queue.
func (s *Store) queueCall(sc *script, queue string, args ...any) *evalCall {
	return &evalCall{script: sc, keys: s.scriptKeys(sc, s.queueKeys(queue), ""), args: args}
}

// wfCall returns a call of sc on workflow wf.
func (s *Store) wfCall(sc *script, wf string, args ...any) *evalCall {
	return &evalCall{script: sc, keys: s.scriptKeys(sc, nil, wf), args: args}
}

// shapedCall returns a call of script file on queue, in the variant of the
// queue's shape with vary's slots (see evalCall), extra keys after its
// own.
func shapedCall(file, queue string, vary variant, extra []string, args ...any) *evalCall {
	return &evalCall{file: file, queue: queue, vary: vary, extra: extra, args: args}
}

// scriptKeys returns sc's KEYS: the keys it declares, of queue k, of
// workflow wf, of the workflow index and store-wide. A queue script's are
// built once per queue.
func (s *Store) scriptKeys(sc *script, k *queueKeys, wf string) []string {
	if k != nil && wf == "" {
		if v, ok := k.byScript.m.Load(sc.idx); ok {
			return v.([]string)
		}
	}
	out := make([]string, len(sc.keys))
	for i, ki := range sc.keys {
		d := &keyTable[ki]
		switch d.fam {
		case famQueue:
			out[i] = k.all[ki]
		case famWorker:
			// Heartbeat's own key, which the caller puts in (workers.go).
		default:
			out[i] = familyTag(s.opts.Prefix, d.fam, wf) + d.suffix
		}
	}
	if k != nil && wf == "" {
		k.byScript.m.Store(sc.idx, out)
	}
	return out
}

// scriptKeyCache holds a queue's KEYS per script (scriptKeys).
type scriptKeyCache struct {
	m sync.Map // script idx -> []string
}

// shaped resolves c's script and keys for its queue's shape as the Store
// knows it now.
func (s *Store) shaped(c *evalCall) {
	v := c.vary
	v.shape |= s.shapes.get(c.queue)
	c.script = scriptFor(c.file, v)
	qk := s.queueKeys(c.queue)
	keys := s.scriptKeys(c.script, qk, c.wf)
	c.cut = c.short && v.shape == 0 && c.script.lead > 0 && qk.lean.Load()
	switch {
	case c.cut && c.leanFile != "" && !s.plainDenied.Load():
		c.script = scriptFor(c.leanFile, variant{})
		keys = s.scriptKeys(c.script, qk, "")
	case c.cut:
		keys = keys[:c.script.lead]
	case c.tailless:
		keys = keys[:len(keys)-c.script.tail]
	}
	if len(c.extra) > 0 {
		keys = append(append(make([]string, 0, len(keys)+len(c.extra)), keys...), c.extra...)
	}
	c.keys = keys
}

// replyOf is the reply of call cmd, nil when the call failed. A failed
// call's Val is not its reply: go-redis keeps there what it read before
// the connection broke (a script's reply, WAIT's lost) and stamps the
// error on it once its retries are spent.
func replyOf(cmd *redis.Cmd) any {
	if cmd.Err() != nil {
		return nil
	}
	return cmd.Val()
}

// refusedShort reports whether reply cmd is the refusal of a call sent its
// script's lead keys alone (evalCall.short): "~", having done nothing.
func refusedShort(cmd *redis.Cmd) bool {
	v, ok := replyOf(cmd).(string)
	return ok && v == "~"
}

// leanReply reports whether reply cmd, of a call that could take the lean
// way (evalCall.leanWay), says the call took it (adds/plain.lua: "R"
// instead of "r" for a job stored), and leaves "r" in its place.
func leanReply(cmd *redis.Cmd) bool {
	switch v := replyOf(cmd).(type) {
	case string:
		if v == "R" {
			cmd.SetVal("r")
			return true
		}
	case []any:
		lean := false
		for i, x := range v {
			if x == "R" {
				v[i], lean = "r", true
			}
		}
		return lean
	}
	return false
}

// refusedShape reports whether reply cmd is a script's refusal of its
// queue (conf.lua), and the queue's shape it gave.
func refusedShape(cmd *redis.Cmd) (shape, bool) {
	v, ok := replyOf(cmd).([]any)
	if !ok || len(v) != 2 {
		return 0, false
	}
	if t, _ := v[0].(string); t != "~" {
		return 0, false
	}
	sh, _ := v[1].(string)
	return parseShape(sh), true
}

// errShapeMoving is the error of a call whose queue changed shape between
// three tries of it.
var errShapeMoving = errors.New("redisstore: the queue's shape changed while the call was sent, three times")

// sendShaped sends calls in one round trip (runDurable for durable calls
// with Config.Replicas, else runAll), shaped calls in the variant of
// their queue's shape, and sends again those a script refused, in the
// variant it says serves the queue: they did nothing.
func (s *Store) sendShaped(ctx context.Context, calls []*evalCall, pre func(redis.Pipeliner), durable bool) {
	for _, c := range calls {
		if c.file != "" {
			s.shaped(c)
		}
	}
	s.send(ctx, calls, pre, durable)
	s.sendRefused(ctx, calls, durable)
	for _, c := range calls {
		if c.leanWay && leanReply(c.cmd) {
			s.queueKeys(c.queue).lean.Store(true)
		}
	}
}

// sendRefused sends again the calls of calls that a script refused, as
// sendShaped says.
func (s *Store) sendRefused(ctx context.Context, calls []*evalCall, durable bool) {
	for try := 0; ; {
		var again []*evalCall
		moved := false
		for _, c := range calls {
			if c.file == "" {
				continue
			}
			if c.cut && refusedShort(c.cmd) {
				// The lean mark was not set: this call with every key,
				// and the queue's next ones until one takes the lean way.
				s.queueKeys(c.queue).lean.Store(false)
				c.short = false
				s.shaped(c)
				again = append(again, c)
			} else if sh, ok := refusedShape(c.cmd); ok {
				s.shapes.set(c.queue, sh)
				s.shaped(c)
				again = append(again, c)
				moved = true
			}
		}
		if len(again) == 0 {
			return
		}
		if moved {
			try++
		}
		if try == 3 {
			for _, c := range again {
				c.cmd = failedCmd(ctx, errShapeMoving)
			}
			return
		}
		s.send(ctx, again, nil, durable)
	}
}

// send sends calls in one round trip: durable ones with Config.Replicas
// waiting for them to reach the replicas (runDurable).
func (s *Store) send(ctx context.Context, calls []*evalCall, pre func(redis.Pipeliner), durable bool) {
	if durable && s.opts.Replicas > 0 {
		s.runDurable(ctx, calls, pre)
	} else {
		s.runAll(ctx, calls, pre)
	}
}

// runDurableOne runs script sc with keys and args, waiting with
// Config.Replicas for its writes to reach the replicas (send), and returns
// its reply.
func (s *Store) runDurableOne(ctx context.Context, sc *script, keys []string, args []any) *redis.Cmd {
	c := &evalCall{script: sc, keys: keys, args: args}
	s.send(ctx, []*evalCall{c}, nil, true)
	return c.cmd
}

// runDurableShaped runs one shaped call (see shapedCall) as
// runDurableOne runs a script, and returns its reply.
func (s *Store) runDurableShaped(ctx context.Context, c *evalCall) *redis.Cmd {
	s.sendShaped(ctx, []*evalCall{c}, nil, true)
	return c.cmd
}

// runShaped runs one shaped call (see shapedCall), with no wait for
// replicas, and returns its reply.
func (s *Store) runShaped(ctx context.Context, c *evalCall) *redis.Cmd {
	s.sendShaped(ctx, []*evalCall{c}, nil, false)
	return c.cmd
}

// runAll sends calls in one round trip (one pipeline, after the commands
// pre adds; a single call without pre is sent on its own) and leaves each
// reply in its cmd: on the connection of the calls' lease when they have
// one (runLeased, which sends again through the pool the calls whose
// connection failed). A call the server did not know the script of (a
// restarted or flushed server) did not run; it is sent again once the
// script is loaded (see call). Per-call errors stay in the cmds; the
// caller reads them.
func (s *Store) runAll(ctx context.Context, calls []*evalCall, pre func(redis.Pipeliner)) {
	single := len(calls) == 1 && pre == nil
	if len(calls) > 0 && calls[0].via != nil {
		s.runLeased(ctx, calls[0].via, calls, pre)
		return
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok && !single {
		s.runPerNode(ctx, cc, calls, pre)
		return
	}
	s.runOn(ctx, s.rdb, calls, pre)
}

// pipeRunner is what runOn sends calls through: the store's client, or a
// lease's connection.
type pipeRunner interface {
	scriptRunner
	Pipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error)
}

// runOn is runAll on one client or connection, r.
func (s *Store) runOn(ctx context.Context, r pipeRunner, calls []*evalCall, pre func(redis.Pipeliner)) {
	if len(calls) == 1 && pre == nil {
		c := calls[0]
		c.cmd = s.callOn(ctx, r, c.once || c.noResend, c.script, c.keys, c.args...)
		s.observe(c.cmd.Err())
		s.resendFailed(ctx, r, calls)
		return
	}
	_, once := r.(*redis.Conn) // a lease's (see callOn)
	_, _ = r.Pipelined(ctx, func(p redis.Pipeliner) error {
		if pre != nil {
			pre(p)
		}
		for _, c := range calls {
			c.cmd = s.pipeOn(ctx, p, once || c.once || c.noResend, c.script, c.keys, c.args...)
		}
		return nil
	})
	for _, c := range calls {
		if notLoaded(c.cmd.Err()) {
			c.cmd = s.callOn(ctx, r, c.once || c.noResend, c.script, c.keys, c.args...)
		}
		s.observe(c.cmd.Err())
	}
	s.resendFailed(ctx, r, calls)
}

// resendFailed sends again, through r with go-redis's retries, each of
// calls marked noResend whose connection failed under it (connFailed):
// as go-redis would have, had the call not gone once. A lease's calls
// are not sent again here: runLeased sends them through the pool.
func (s *Store) resendFailed(ctx context.Context, r scriptRunner, calls []*evalCall) {
	if _, lease := r.(*redis.Conn); lease {
		return
	}
	for _, c := range calls {
		if c.noResend && c.cmd.Err() != nil && connFailed(c.cmd.Err()) {
			c.cmd = s.call(ctx, r, c.script, c.keys, c.args...)
			s.observe(c.cmd.Err())
		}
	}
}

// run runs one script call.
func (s *Store) run(ctx context.Context, sc *script, keys []string, args ...any) *redis.Cmd {
	cmd := s.call(ctx, s.rdb, sc, keys, args...)
	s.observe(cmd.Err())
	return cmd
}

// runQ runs script sc on queue.
func (s *Store) runQ(ctx context.Context, sc *script, queue string, args ...any) *redis.Cmd {
	return s.run(ctx, sc, s.scriptKeys(sc, s.queueKeys(queue), ""), args...)
}

// runWf runs script sc on workflow wf.
func (s *Store) runWf(ctx context.Context, sc *script, wf string, args ...any) *redis.Cmd {
	return s.run(ctx, sc, s.scriptKeys(sc, nil, wf), args...)
}
