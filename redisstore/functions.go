package redisstore

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// script is one variant of a script of lua/ (lua.go) in its two forms:
//
//   - a function library, named after a hash of its source so that
//     processes of different versions sharing a server each call their
//     own: loaded once per server with FUNCTION LOAD, called with FCALL.
//     Its modules and the script's body are defined at load; a call only
//     runs them. This is the default.
//   - a plain script run with EVALSHA (EVAL when the server does not know
//     it): Config.NoFunctions, or a server that refused FUNCTION LOAD.
//
// Both forms are the same Lua: the constants, the modules, then the body,
// with K's fields set from KEYS and the modules' reset functions run at
// the start of every call. As a function the body is wrapped in a
// function of its own and KEYS and ARGV are the library's locals, set by
// each call.
type script struct {
	name string        // the file, and the variant after '.'
	eval *redis.Script // the plain script
	src  string        // its source
	lib  string        // the function library's source
	fn   string        // the library's name and its one function's
	keys []int         // its KEYS: indexes in keyTable
	tail int           // how many of keys, at the end, are tail keys (lua.go)
	lead int           // how many of keys, at the start, are lead keys (lua.go)
	// idx is the script's number, for the caches of its KEYS per queue
	// (scriptKeys).
	idx int
	// shard is the script's form for a Redis Cluster, which publishes its
	// wake-ups on shard channels (notify_sharded.go): built on first use.
	shard shardTwin
	// plain says the script runs with EVALSHA alone, never as a function
	// (lua.go: @eval): lib and fn are empty.
	plain bool
}

// variant says which files a script's slots take.
type variant struct {
	shape shape  // of the queue, or the queue and the jobs: the ready, limits and kidx slots
	wf    string // the wf slot: "" (none), "record" or "local"
	adds  string // the adds slot of enqueue: "" (plain) or "extras"
}

// scripts holds every variant built so far, by file and variant (read
// without a lock: every call looks its script up), and by name, and their
// list in the order they were built (a start-up check that finds the
// server without the preloaded ones loads all those built so far:
// loadLibraries).
var scripts struct {
	byVariant sync.Map // scriptID -> *script
	sync.Mutex
	byName map[string]*script
	all    []*script
}

type scriptID struct {
	file string
	v    variant
}

// keyCheck, set by tests before any script is built, makes every script
// fail a command on a key that is not in its KEYS (keycheck.go).
var keyCheck bool

// scriptFor returns variant v of script file, building it on first use.
// It panics when the file's includes or keys are wrong: a bug of this
// package, which the tests meet first.
func scriptFor(file string, v variant) *script {
	id := scriptID{file, v}
	if sc, ok := scripts.byVariant.Load(id); ok {
		return sc.(*script)
	}
	scripts.Lock()
	defer scripts.Unlock()
	if sc, ok := scripts.byVariant.Load(id); ok {
		return sc.(*script)
	}
	impl := v.shape.slots()
	if v.wf != "" {
		impl["wf"] = v.wf
	}
	if v.adds != "" {
		impl["adds"] = v.adds
	}
	b, err := assemble(file, impl)
	if err != nil {
		panic("redisstore: " + err.Error())
	}
	// The letters of the shape the script looks at: those of its slots;
	// its name: the file, the letters its variant serves, and the files
	// of the other slots that are not their slot's default.
	var seen shape
	var tag strings.Builder
	for _, f := range b.files {
		if slot, choice, ok := strings.Cut(f.name, "/"); ok && isSlot(slot) {
			seen |= shapeOfSlot[slot]
			if shapeOfSlot[slot] == 0 && choice != slotDefaults[slot] {
				tag.WriteString("." + choice)
			}
		}
	}
	name := file
	if sh := (v.shape & seen).String(); sh != "" {
		name += "." + sh
	}
	name += tag.String()
	if sc := scripts.byName[name]; sc != nil {
		scripts.byVariant.Store(id, sc)
		return sc
	}
	sc := buildScript(name, b, v.shape&seen, seen)
	if scripts.byName == nil {
		scripts.byName = map[string]*script{}
	}
	sc.idx = len(scripts.all)
	scripts.byName[name] = sc
	scripts.byVariant.Store(id, sc)
	scripts.all = append(scripts.all, sc)
	return sc
}

// allScripts returns the scripts built so far.
func allScripts() []*script {
	scripts.Lock()
	defer scripts.Unlock()
	return slices.Clone(scripts.all)
}

// buildScript writes the two forms of script name from b; served are the
// shape letters its variant serves of those it looks at (looked).
func buildScript(name string, b *luaBuild, served, looked shape) *script {
	return buildForm(name, b, served, looked, false)
}

// rcallSet sets rcall, the local every script's commands are called
// through (the modules write rcall(...), not redis.call(...)): a local
// costs less than the global redis and its field at every command (the
// globals of a function library are an empty table whose metatable finds
// redis: bench/instr/callgrind.sh counts 1.3 % fewer instructions a job
// in a merged enqueue of 7 and in a drain of 32 a claim, 1 % in a lone
// enqueue; docs/performance-log.md, "One local for redis.call"). A plain
// script sets it at every run, ahead of its first hook; a function
// library at its first call, not at load, as a library sees another
// redis table while it loads. Under keyCheck the redis it reads is
// keycheck.go's, which checks each command's keys.
const rcallSet = "rcall = redis.call"

// buildForm is buildScript; shardPub builds the form that publishes its
// wake-ups on shard channels (notify_sharded.go).
func buildForm(name string, b *luaBuild, served, looked shape, shardPub bool) *script {
	if b.eval {
		return buildPlain(name, b, shardPub)
	}
	flags := b.flags
	var head strings.Builder
	head.WriteString("local SHAPE, SHAPE_SEEN = '" + served.String() + "', '" + looked.String() + "'\n")
	if wakes(b) {
		head.WriteString("local SHARD_PUB = " + strconv.FormatBool(shardPub) + "\n")
	}
	head.WriteString(constsSrc(b))
	if keyCheck {
		head.WriteString(keyCheckSrc)
	}
	head.WriteString(b.readers())
	head.WriteString(b.modules())
	resets := b.firsts() + b.resetFields() + b.resets()
	if b.readsFieldsFirst() {
		// The body's first step sets every field resetFields would
		// clear, and no reset or first function reads them.
		resets = b.firsts() + b.resets()
	}

	shebang := shebangOf(flags)
	// Each form is the head and the body once more, and a little: sized
	// ahead, as every process builds these at its start.
	size := head.Len() + len(b.body()) + 2*len(resets) + 1024
	var eval strings.Builder
	eval.Grow(size)
	// The one comment left (luaStrip): the script's name, which an EVAL
	// does not otherwise carry.
	eval.WriteString(shebang + "-- script " + name + "\nlocal KEYS, ARGV, rcall = KEYS, ARGV\nlocal K, K_N = {}, 0\n")
	eval.WriteString(head.String())
	if keyCheck {
		eval.WriteString("kc_begin(KEYS)\n")
	}
	eval.WriteString(rcallSet + "\n")
	eval.WriteString(b.keyBinds("KEYS") + "\n")
	eval.WriteString(resets + "\n" + b.body())

	var lib strings.Builder
	lib.Grow(size)
	lib.WriteString("local KEYS, ARGV, rcall\nlocal K, K_N = {}, 0\nlocal redis_register = redis.register_function\n")
	lib.WriteString(head.String())
	lib.WriteString("local function main()\n" + b.body() + "\nend\n")
	h := sha1.New()
	io.WriteString(h, lib.String())
	io.WriteString(h, flags)
	sum := h.Sum(nil)
	fn := "hopper_" + hex.EncodeToString(sum[:6]) + "_" + strings.NewReplacer(".", "_", "/", "_").Replace(name)
	lib.WriteString("redis_register{function_name = '" + fn + "', callback = function(keys, args)\n")
	lib.WriteString("  KEYS, ARGV = keys, args\n")
	lib.WriteString("  if not rcall then " + rcallSet + " end\n")
	if keyCheck {
		lib.WriteString("  kc_begin(keys)\n")
	}
	lib.WriteString("  " + b.keyBinds("keys") + "\n")
	lib.WriteString("  " + resets + "\n  return main()\n")
	lib.WriteString("end, flags = {" + luaFlags(flags) + "}}\n")
	sc := &script{
		name: name,
		eval: redis.NewScript(eval.String()),
		src:  eval.String(),
		lib:  "#!lua name=" + fn + "\n" + lib.String(),
		fn:   fn,
		keys: b.keys,
		tail: b.tail,
		lead: b.lead,
	}
	sc.shard.from = shardFrom{b: b, served: served, looked: looked}
	return sc
}

// buildPlain is buildForm for a plain script (@eval): its shebang, the
// constants it names, its keys bound to locals and its code, which every
// call runs whole.
func buildPlain(name string, b *luaBuild, shardPub bool) *script {
	var src strings.Builder
	src.WriteString(shebangOf(b.flags) + "-- script " + name + "\n")
	if wakes(b) {
		src.WriteString("local SHARD_PUB = " + strconv.FormatBool(shardPub) + "\n")
	}
	src.WriteString(constsSrc(b))
	if keyCheck {
		src.WriteString(keyCheckSrc + "kc_begin(KEYS)\n")
	}
	src.WriteString("local " + rcallSet + "\n" + b.evalKeyBinds() + b.body())
	sc := &script{
		name:  name,
		eval:  redis.NewScript(src.String()),
		src:   src.String(),
		keys:  b.keys,
		plain: true,
	}
	sc.shard.from = shardFrom{b: b}
	return sc
}

// shebangOf returns a plain script's first line, with its flags
// ("allow-oom,no-writes") when it has any.
func shebangOf(flags string) string {
	if flags == "" {
		return "#!lua\n"
	}
	return "#!lua flags=" + flags + "\n"
}

// luaFlags turns a shebang's flags ("allow-oom,no-writes") into the
// elements of register_function's flags table.
func luaFlags(flags string) string {
	if flags == "" {
		return ""
	}
	var b strings.Builder
	for i, f := range strings.Split(flags, ",") {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + f + "'")
	}
	return b.String()
}

// scriptRunner is what a script call goes through: a client, a node's
// client or a pipeline.
type scriptRunner interface {
	redis.Scripter
	Process(ctx context.Context, cmd redis.Cmder) error
}

// funcMode says whether the store calls its scripts as functions.
type funcMode struct {
	on      atomic.Bool // FCALL; else EVALSHA
	refused atomic.Bool // a server refused FUNCTION LOAD during a check
	// fullUntil is when a load refused for want of memory may be tried
	// again (monotonic ns: monoNow; 0: none was): until then a function
	// a server lacks runs as a plain script at once (reloadFunctions).
	fullUntil atomic.Int64
	// fullPause is how long that is: defaultFullPause (tests change it).
	fullPause time.Duration
}

// defaultFullPause is how long a store sends no FUNCTION LOAD after a
// server refused one at maxmemory. A library is a large command (tens
// of KB) that the server reads whole before refusing it, at every call
// of a script it lacks while it is full; the calls run as plain scripts
// meanwhile, which claims and acks may do at maxmemory.
const defaultFullPause = time.Second

// monoEpoch anchors monoNow.
var monoEpoch = time.Now()

// monoNow returns the time since the process started, from the monotonic
// clock: a step of the wall clock does not move it.
func monoNow() int64 { return int64(time.Since(monoEpoch)) }

// pauseLoads records that a server refused FUNCTION LOAD for want of
// memory: no store call loads a library for fmode.fullPause.
func (s *Store) pauseLoads() {
	s.fmode.fullUntil.Store(monoNow() + int64(s.fmode.fullPause))
}

// loadsPaused reports whether a load must wait (pauseLoads). When the
// pause has ended, one caller is let through, which starts the next
// pause: the others wait for what its load finds.
func (s *Store) loadsPaused() bool {
	until := s.fmode.fullUntil.Load()
	if until == 0 {
		return false
	}
	now := monoNow()
	if now < until {
		return true
	}
	return !s.fmode.fullUntil.CompareAndSwap(until, now+int64(s.fmode.fullPause))
}

// call runs sc on c and returns its reply. A function the server does not
// know (a flushed or new server) is loaded on the key's node and called
// again; where that fails the store turns to plain scripts for good.
func (s *Store) call(ctx context.Context, c scriptRunner, sc *script, keys []string, args ...any) *redis.Cmd {
	return s.callOn(ctx, c, false, sc, keys, args...)
}

// callOn is call, with once saying that go-redis must not send the call
// again once it may have reached the server (a claim: takeback.go). A
// call on a lease's connection (a *redis.Conn, lease.go) always goes
// once: go-redis's own retries on that connection would find it broken
// and sleep their backoffs first, and the lease sends a failed call again
// through the pool at once (runLeased), where go-redis retries.
func (s *Store) callOn(ctx context.Context, c scriptRunner, once bool, sc *script, keys []string, args ...any) *redis.Cmd {
	sc = s.forServer(sc)
	if _, conn := c.(*redis.Conn); conn {
		once = true
	}
	if s.fmode.on.Load() && !sc.plain {
		cmd := fcallOn(ctx, c, once, sc.fn, keys, args)
		if !noFunction(cmd.Err()) {
			return cmd
		}
		if s.reloadFunctions(ctx, keys, sc) {
			if cmd = fcallOn(ctx, c, once, sc.fn, keys, args); !noFunction(cmd.Err()) {
				return cmd
			}
		}
	}
	return evalOn(ctx, c, once, sc, keys, args)
}

// evalOn runs sc as a plain script, as go-redis's Script.Run does
// (EVALSHA, then EVAL when the server lacks it), with the keys by address
// (fcallOn); with once, each command marked to go once (onceCmd).
func evalOn(ctx context.Context, c scriptRunner, once bool, sc *script, keys []string, args []any) *redis.Cmd {
	cmd := sendScript(ctx, c, once, "evalsha", sc.eval.Hash(), keys, args)
	if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
		cmd = sendScript(ctx, c, once, "eval", sc.src, keys, args)
	}
	return cmd
}

// fcallOn sends (or queues, on a pipeline) FCALL fn with keys and args on
// r as go-redis's FCall builds it, but with the keys by address (args.go:
// go-redis's FCall boxes each key, an allocation a key, and a claim or a
// finish names dozens); with once, marked to go once (onceCmd). On a
// Cluster the slot is the first key's, which go-redis reads through its
// String method.
func fcallOn(ctx context.Context, r interface {
	Process(context.Context, redis.Cmder) error
}, once bool, fn string, keys []string, args []any) *redis.Cmd {
	return sendScript(ctx, r, once, "fcall", fn, keys, args)
}

// sendScript sends (or queues) name (FCALL, EVALSHA or EVAL) of what
// (a function's name, a script's digest or source) with keys and args on
// r, as fcallOn says.
func sendScript(ctx context.Context, r interface {
	Process(context.Context, redis.Cmder) error
}, once bool, name, what string, keys []string, args []any) *redis.Cmd {
	a := make([]any, 0, 3+len(keys)+len(args))
	a = append(a, name, what, len(keys))
	for i := range keys {
		a = append(a, (*strArg)(&keys[i]))
	}
	a = append(a, args...)
	cmd := redis.NewCmd(ctx, a...)
	if len(keys) > 0 {
		cmd.SetFirstKeyPos(3)
	}
	if once {
		_ = r.Process(ctx, onceCmd{cmd})
	} else {
		_ = r.Process(ctx, cmd)
	}
	return cmd
}

// onceCmd is a command go-redis sends once, without its retries; in a
// pipeline, it makes go-redis send the whole pipeline once. It keeps
// *redis.Cmd's methods (Val, Result) for a hook that reads the reply;
// onceAny wraps commands of other types.
type onceCmd struct{ *redis.Cmd }

// onceAny is onceCmd for a command of any type.
type onceAny struct{ redis.Cmder }

// NoRetry tells go-redis not to send the command again after a failure.
func (onceAny) NoRetry() bool { return true }

// NoRetry tells go-redis not to send the command again after a failure.
func (onceCmd) NoRetry() bool { return true }

// pipe queues sc on pipeline p. A reply for which notLoaded is true did
// not run: send it again with call.
func (s *Store) pipe(ctx context.Context, p redis.Pipeliner, sc *script, keys []string, args ...any) *redis.Cmd {
	return s.pipeOn(ctx, p, false, sc, keys, args...)
}

// pipeOn is pipe, with once saying the pipeline goes on a lease's
// connection: its calls are sent once (see callOn), and so the whole
// pipeline is.
func (s *Store) pipeOn(ctx context.Context, p redis.Pipeliner, once bool, sc *script, keys []string, args ...any) *redis.Cmd {
	sc = s.forServer(sc)
	if s.fmode.on.Load() && !sc.plain {
		return fcallOn(ctx, p, once, sc.fn, keys, args)
	}
	return sendScript(ctx, p, once, "evalsha", sc.eval.Hash(), keys, args)
}

// notLoaded reports whether err says the server did not know the script
// or function called: nothing ran.
func notLoaded(err error) bool {
	return err != nil && (redis.HasErrorPrefix(err, "NOSCRIPT") || noFunction(err))
}

// noFunction reports whether err says the server did not know the
// function called. (Without an error it asks go-redis nothing: its
// errors.As allocates, and every script call asks.)
func noFunction(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "Function not found")
}

// reloadFunctions loads the libraries of want on the node of keys[0]
// (every shard of a Ring): a variant built after the start-up check, or a
// node that lost its functions (each script then comes back on its first
// call). When that fails, the store turns to plain scripts and it returns
// false.
func (s *Store) reloadFunctions(ctx context.Context, keys []string, want ...*script) bool {
	if s.loadsPaused() {
		return false
	}
	want = s.allForServer(want)
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		var node *redis.Client
		if node, err = c.MasterForKey(ctx, keys[0]); err == nil {
			err = loadFunctions(ctx, node, want)
		}
	case *redis.Ring:
		err = c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return loadFunctions(ctx, n, want) })
	default:
		err = loadFunctions(ctx, s.rdb, want)
	}
	if err == nil {
		s.fmode.fullUntil.Store(0)
		return true
	}
	if classify(err) == ErrOOM {
		s.pauseLoads()
	}
	if refused(err) && s.fmode.on.CompareAndSwap(true, false) {
		s.opts.Logger.Warn("redisstore: the server refused FUNCTION LOAD; calling plain scripts (EVALSHA) from now on, which costs Redis more CPU per call",
			"error", err)
	}
	return false
}

// refused reports whether err is the server's lasting refusal of FUNCTION
// LOAD (ACL, a proxy or a server without functions), not a passing state
// of the node (a replica, loading, failing over) or of the link.
func refused(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	// A library that does not compile is this package's bug, not the
	// server's refusal: the call fails, loudly, rather than turn every
	// later one to plain scripts.
	if strings.Contains(err.Error(), "Error compiling") || strings.Contains(err.Error(), "Error registering") {
		return false
	}
	for _, passing := range []string{"READONLY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "BUSY", "OOM"} {
		if redis.HasErrorPrefix(err, passing) {
			return false
		}
	}
	return true
}

// loadLibraries loads the preloaded libraries (preloadScripts) on c, in
// their form for the store's server (allForServer), with every other
// built so far, unless c holds them from an earlier process: a library of
// its own, their manifest, is loaded once they all were, and a server
// whose manifest answered FCALL (called: the reply, which the check's
// reads carried, readNode) is sent none of their source again (about a
// megabyte). The libraries are built only then: a process whose server
// holds them builds each script on its first call, from its own files.
// A library deleted by hand since comes back on its first call that
// misses it, as after FUNCTION FLUSH.
func (s *Store) loadLibraries(ctx context.Context, c redis.Cmdable, called *redis.Cmd) error {
	fn, lib := manifest(s.shardPub)
	if called.Err() == nil {
		return nil
	}
	preloadScripts()
	if err := loadFunctions(ctx, c, s.allForServer(allScripts())); err != nil {
		return err
	}
	if err := c.FunctionLoad(ctx, lib).Err(); err != nil && !loaded(err, fn) {
		return fmt.Errorf("FUNCTION LOAD of the libraries' manifest: %w", err)
	}
	return nil
}

// libGo holds the Go files that make libraries of lua/'s files, for the
// manifest's digest (makeManifest): any change to them, even one that
// leaves every library as it was, names a new manifest, so that a new
// build's first process loads the libraries its server lacks.
//
//go:embed functions.go lua.go keys.go keycheck.go notify_sharded.go scripts.go shape.go
var libGo embed.FS

// manifestPlain and manifestShard are the manifest's name and library
// in its two forms (manifest), made on first use.
var (
	manifestPlain = sync.OnceValue(func() [2]string { return makeManifest(false) })
	manifestShard = sync.OnceValue(func() [2]string { return makeManifest(true) })
)

// manifest returns the name and the library of the manifest of the
// preloaded libraries in their form for a server with shard channels
// (shard) or without (loadLibraries): one function that does nothing and
// may run anywhere. Its name is a digest of what they are built from, so
// that a process learns whether a server holds them without building
// them: lua/'s files, the Go files that build them (libGo) with the
// values they read from elsewhere (the constants and texts Lua shares
// with Go), and whether the tests' key check is on (keycheck.go). A
// manifest found while a library it stands for is missing (deleted by
// hand) costs the first call of that library a reload (Store.call).
func manifest(shard bool) (fn, lib string) {
	m := manifestPlain
	if shard {
		m = manifestShard
	}
	v := m()
	return v[0], v[1]
}

// makeManifest is manifest, made. It streams each file into the digest
// through one buffer: copies of the files (about 600 kB, lua/'s twice)
// cost a first call more than the hashing (docs/performance.md, "A process's first
// call").
func makeManifest(shard bool) [2]string {
	h := sha1.New()
	fmt.Fprintf(h, "%t %t\n%v\n%v\n", shard, keyCheck, luaConsts, luaTexts)
	buf := make([]byte, 32<<10)
	for _, name := range luaNames() {
		digestFile(h, luaFS, luaPath(name), buf)
	}
	goFiles, err := libGo.ReadDir(".")
	if err != nil {
		panic("redisstore: " + err.Error())
	}
	for _, f := range goFiles {
		digestFile(h, libGo, f.Name(), buf)
	}
	fn := "hopper_" + hex.EncodeToString(h.Sum(nil)[:6]) + "_loaded"
	lib := "#!lua name=" + fn + "\nredis.register_function{function_name = '" + fn +
		"', callback = function() return 1 end, flags = {'no-writes', 'allow-oom', 'allow-stale'}}\n"
	return [2]string{fn, lib}
}

// digestFile writes file p of fsys to h, after its path and size, through
// buf. It panics when the file cannot be read: the files are embedded.
func digestFile(h io.Writer, fsys embed.FS, p string, buf []byte) {
	f, err := fsys.Open(p)
	if err == nil {
		var fi fs.FileInfo
		if fi, err = f.Stat(); err == nil {
			fmt.Fprintf(h, "%s %d\n", p, fi.Size())
			_, err = io.CopyBuffer(h, f, buf)
		}
		f.Close()
	}
	if err != nil {
		panic("redisstore: " + err.Error())
	}
}

// loaded reports whether err is FUNCTION LOAD's refusal of library fn
// because the server has it (the same name is the same source).
func loaded(err error, fn string) bool {
	return redis.HasErrorPrefix(err, "Library '"+fn+"' already exists")
}

// loadFunctions loads the libraries of all on c, in one round trip. A
// library already there (the same name is the same source) is kept.
func loadFunctions(ctx context.Context, c redis.Cmdable, all []*script) error {
	all = slices.DeleteFunc(slices.Clone(all), func(sc *script) bool { return sc.plain })
	if len(all) == 0 {
		return nil
	}
	cmds := make([]*redis.StringCmd, len(all))
	_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, sc := range all {
			cmds[i] = p.FunctionLoad(ctx, sc.lib)
		}
		return nil
	})
	for i, cmd := range cmds {
		if err := cmd.Err(); err != nil && !loaded(err, all[i].fn) {
			return fmt.Errorf("FUNCTION LOAD of %s: %w", all[i].name, err)
		}
	}
	return nil
}
