package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// script is one script of lua/ in its two forms (see scripts.go):
//
//   - a function library, named after a hash of its source so that
//     processes of different versions sharing a server each call their
//     own: loaded once per server with FUNCTION LOAD, called with FCALL.
//     Its helpers and the script's body are defined at load; a call only
//     runs them. This is the default.
//   - a plain script run with EVALSHA (EVAL when the server does not know
//     it): Options.NoFunctions, or a server that refused FUNCTION LOAD.
//
// Both forms are the same Lua: the helper files' top-level code, then the
// reset_<file> functions of the files that keep state for one call, then
// the body. As a function the body is wrapped in a function of its own and
// KEYS and ARGV are the library's locals, set by each call.
type script struct {
	name string        // the file, and the variant after '+'
	eval *redis.Script // the plain script
	lib  string        // the function library's source
	fn   string        // the library's name and its one function's
}

// newScript builds the script of lua/<name>.lua with helpers; a name
// "<script>+<variant>" is lua/<script>.lua with other helpers.
func newScript(name string, readOnly bool, helpers ...string) *script {
	file, _, _ := strings.Cut(name, "+")
	body := luaFile(file)
	flags := ""
	switch {
	case strings.HasPrefix(body, "#!lua flags="):
		// The script's first line declares its own flags (allow-oom).
		line, rest, _ := strings.Cut(body, "\n")
		flags = strings.TrimPrefix(line, "#!lua flags=")
		body = rest
	case readOnly:
		flags = "no-writes"
	}
	var libs, resets strings.Builder
	for _, h := range append([]string{"base"}, helpers...) {
		src := luaFile("lib_" + h)
		libs.WriteString(src)
		if strings.Contains(src, "\nlocal function reset_"+h+"()") {
			resets.WriteString("reset_" + h + "() ")
		}
	}

	shebang := "#!lua\n"
	if flags != "" {
		shebang = "#!lua flags=" + flags + "\n"
	}
	eval := shebang + libs.String() + resets.String() + "\n" + body

	var lib strings.Builder
	lib.WriteString("local KEYS, ARGV\n")
	lib.WriteString(libs.String())
	lib.WriteString("local function main()\n" + body + "\nend\n")
	sum := sha1.Sum([]byte(lib.String() + flags))
	fn := "hopper_" + hex.EncodeToString(sum[:6]) + "_" + strings.ReplaceAll(name, "+", "_")
	lib.WriteString("redis.register_function{function_name = '" + fn + "', callback = function(keys, args)\n")
	lib.WriteString("  KEYS, ARGV = keys, args\n  " + resets.String() + "\n  return main()\n")
	lib.WriteString("end, flags = {" + luaFlags(flags) + "}}\n")
	sc := &script{
		name: name,
		eval: redis.NewScript(eval),
		lib:  "#!lua name=" + fn + "\n" + lib.String(),
		fn:   fn,
	}
	allScripts = append(allScripts, sc)
	return sc
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

func luaFile(name string) string {
	b, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic("redisstore: missing script " + name)
	}
	return string(b)
}

// scriptRunner is what a script call goes through: a client, a node's
// client or a pipeline.
type scriptRunner interface {
	redis.Scripter
	FCall(ctx context.Context, function string, keys []string, args ...any) *redis.Cmd
}

// funcMode says whether the store calls its scripts as functions.
type funcMode struct {
	on      atomic.Bool // FCALL; else EVALSHA
	refused atomic.Bool // a server refused FUNCTION LOAD during a check
}

// call runs sc on c and returns its reply. A function the server does not
// know (a flushed or new server) is loaded on the key's node and called
// again; where that fails the store turns to plain scripts for good.
func (s *Store) call(ctx context.Context, c scriptRunner, sc *script, keys []string, args ...any) *redis.Cmd {
	if s.fmode.on.Load() {
		cmd := c.FCall(ctx, sc.fn, keys, args...)
		if !noFunction(cmd.Err()) {
			return cmd
		}
		if s.reloadFunctions(ctx, keys) {
			if cmd = c.FCall(ctx, sc.fn, keys, args...); !noFunction(cmd.Err()) {
				return cmd
			}
		}
	}
	return sc.eval.Run(ctx, c, keys, args...)
}

// pipe queues sc on pipeline p. A reply for which notLoaded is true did
// not run: send it again with call.
func (s *Store) pipe(ctx context.Context, p redis.Pipeliner, sc *script, keys []string, args ...any) *redis.Cmd {
	if s.fmode.on.Load() {
		return p.FCall(ctx, sc.fn, keys, args...)
	}
	return sc.eval.EvalSha(ctx, p, keys, args...)
}

// notLoaded reports whether err says the server did not know the script
// or function called: nothing ran.
func notLoaded(err error) bool {
	return redis.HasErrorPrefix(err, "NOSCRIPT") || noFunction(err)
}

func noFunction(err error) bool {
	return redis.HasErrorPrefix(err, "Function not found")
}

// reloadFunctions loads the libraries on the node of keys[0] (every shard
// of a Ring). When that fails, the store turns to plain scripts and it
// returns false.
func (s *Store) reloadFunctions(ctx context.Context, keys []string) bool {
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		var node *redis.Client
		if node, err = c.MasterForKey(ctx, keys[0]); err == nil {
			err = loadFunctions(ctx, node)
		}
	case *redis.Ring:
		err = c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return loadFunctions(ctx, n) })
	default:
		err = loadFunctions(ctx, s.rdb)
	}
	if err == nil {
		return true
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
	for _, passing := range []string{"READONLY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "BUSY"} {
		if redis.HasErrorPrefix(err, passing) {
			return false
		}
	}
	return true
}

// loadFunctions loads every script's library on c, in one round trip. A
// library already there (the same name is the same source) is kept.
func loadFunctions(ctx context.Context, c redis.Cmdable) error {
	cmds := make([]*redis.StringCmd, len(allScripts))
	_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, sc := range allScripts {
			cmds[i] = p.FunctionLoad(ctx, sc.lib)
		}
		return nil
	})
	for i, cmd := range cmds {
		if err := cmd.Err(); err != nil && !redis.HasErrorPrefix(err, "Library '"+allScripts[i].fn+"' already exists") {
			return fmt.Errorf("FUNCTION LOAD of %s: %w", allScripts[i].name, err)
		}
	}
	return nil
}
