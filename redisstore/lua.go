package redisstore

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hopperq/hopper/store"
)

// The Lua is in lua/: scripts (one per transition or read, at the top) and
// modules (helpers, in files of their own or in a slot's folder). Each
// file says in its header, on lines that start with "--- @":
//
//	--- @include events att ready   the modules it needs, each once
//	--- @keys jobs unack att        the keys its own code touches (keys.go)
//	--- @tailkeys pending           keys it touches that go last in KEYS
//	--- @leadkeys jobs ready lean   keys that go first in KEYS: a path that
//	                                touches only these may be sent them alone
//	--- @conf paused ev             settings fields it reads, in C (C.paused)
//	--- @marks sh hold              marks fields it reads, in M (M.hold)
//	--- @flags allow-oom            a script's flags (no-writes, allow-oom)
//	--- @eval                       a plain script: see below
//
// An include names a file (lua/events.lua) or a slot, a folder
// (lua/ready/): the variant of the script says which file of the folder
// goes in (ready/plain.lua, ready/prio.lua, ready/group.lua), so one
// skeleton gives a script per shape of queue or job, and the plain one
// carries nothing of the others. A script reads what it needs of its
// queue in one HMGET of the hash marks (read_fields, which the loader
// writes): the settings fields its files declare (into C), which
// config.lua copies there from the settings hash conf (the settings as
// SetQueueConfig gave them, which QueueStats reads), and the marks fields
// (into M), what the scripts keep about the queue. The loader puts each
// module in once, after what it includes, then the script's own code;
// the script's KEYS are the keys declared by everything it holds, in
// keyTable's order, which the Lua reads by name: K.jobs, K.unack; the
// tail keys come after the others, so that a call whose path touches
// none of them may leave them out (a lone enqueue leaves out pending:
// Store.shaped, evalCall.tailless); the lead keys come before the
// others, so that a call whose path touches only them may be sent them
// alone (an enqueue of jobs due now into a lean queue: evalCall.short).
// A module that keeps state for one call defines "local function
// reset_<module>()" (the slot's name for a slot's files), which every
// call runs first; one may define "local function first_<module>()",
// which may serve a whole call before the others' set-up (firsts).
// Constants shared with Go come from luaConsts, ahead of everything.
//
// A script marked @eval runs with EVALSHA alone, never as a function
// (script.plain), in the Lua state Redis keeps for plain scripts, whose
// heap holds little: Redis 7.0 steps the collector of the functions'
// state, which holds every library loaded, through that whole heap every
// 50 calls, and a one-job call pays for it (lua/enqueue_lean.lua). Its
// code runs whole at every call, so it holds nothing else: no base, no
// modules, no settings or marks; its keys are locals, K_<name> (K_jobs),
// and its commands go through the local rcall as everywhere.
//
//go:embed lua
var luaFS embed.FS

// luaFile is one file of lua/, its directives read.
type luaFile struct {
	name     string // path in lua/ without ".lua": "claim", "ready/plain"
	src      string
	code     string // src as sent to Redis: without comments, lines kept (luaStrip)
	includes []string
	keys     []string
	tail     []string // keys declared with @tailkeys
	lead     []string // keys declared with @leadkeys
	conf     []string
	marks    []string
	flags    string
	eval     bool // @eval: a plain script
	// idents are the identifiers its code names, tops its top-level
	// declarations (modules(): both read once, at parse).
	idents map[string]bool
	tops   []topDecl
}

// topDecl is a top-level local declaration of a file: line i of the file,
// the names it declares, whether it is a function's and whether it
// initializes them.
type topDecl struct {
	line  int
	names []string
	fn    bool
	init  bool
}

// luaNames returns the name of every file of lua/ (its path in lua/
// without ".lua": "claim", "ready/plain"), sorted, listed on first use.
var luaNames = sync.OnceValue(func() []string {
	var names []string
	err := fs.WalkDir(luaFS, "lua", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lua") {
			return err
		}
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(p, "lua/"), ".lua"))
		return nil
	})
	if err != nil {
		panic("redisstore: " + err.Error())
	}
	slices.Sort(names)
	return names
})

// luaPath returns the path in luaFS of file name of lua/.
func luaPath(name string) string { return "lua/" + name + ".lua" }

// parsedLua holds the files of lua/ parsed so far, by name.
var parsedLua sync.Map // string -> *luaFile

// luaFileNamed returns file name of lua/, parsed on its first use, or nil
// when lua/ has no such file. A script is built from its own files only,
// so that a process's first call parses a tenth of lua/, not all of it
// (docs/performance.md, "A process's first call"). It panics when the
// file's directives are wrong: a bug of this package, which the tests
// meet first (they parse every file: luaFiles).
func luaFileNamed(name string) *luaFile {
	if f, ok := parsedLua.Load(name); ok {
		return f.(*luaFile)
	}
	b, err := luaFS.ReadFile(luaPath(name))
	if err != nil {
		return nil // no such file: the embedded lua/ holds nothing else
	}
	f, err := parseLua(name, string(b))
	if err != nil {
		panic("redisstore: " + err.Error())
	}
	got, _ := parsedLua.LoadOrStore(name, f)
	return got.(*luaFile)
}

// luaFiles returns every file of lua/, parsed, by name.
func luaFiles() map[string]*luaFile {
	m := make(map[string]*luaFile, len(luaNames()))
	for _, name := range luaNames() {
		m[name] = luaFileNamed(name)
	}
	return m
}

// parseLua reads the directives of file name.
func parseLua(name, src string) (*luaFile, error) {
	f := &luaFile{name: name, src: src, code: luaStrip(src)}
	for line := range strings.Lines(src) {
		rest, ok := strings.CutPrefix(line, "--- @")
		if !ok {
			continue
		}
		verb, args, _ := strings.Cut(strings.TrimSpace(rest), " ")
		words := strings.Fields(args)
		switch verb {
		case "include":
			f.includes = append(f.includes, words...)
		case "keys", "tailkeys", "leadkeys":
			for _, k := range words {
				if _, ok := keyIndex[k]; !ok {
					return nil, fmt.Errorf("lua/%s.lua: @%s %s: no such key in keyTable", name, verb, k)
				}
			}
			dst := &f.keys
			switch verb {
			case "tailkeys":
				dst = &f.tail
			case "leadkeys":
				dst = &f.lead
			}
			*dst = append(*dst, words...)
		case "conf":
			f.conf = append(f.conf, words...)
		case "marks":
			f.marks = append(f.marks, words...)
		case "flags":
			f.flags = strings.Join(words, ",")
		case "eval":
			f.eval = true
		default:
			return nil, fmt.Errorf("lua/%s.lua: unknown directive @%s", name, verb)
		}
	}
	f.idents = map[string]bool{}
	for _, id := range luaIdents(src) {
		f.idents[id] = true
	}
	i := 0
	for line := range strings.Lines(src) {
		text := strings.TrimRight(line, "\n")
		if !strings.HasPrefix(text, "local ") {
			i++ // neither pattern below matches: spare the regexps
			continue
		}
		if m := luaTopFunc.FindStringSubmatch(text); m != nil {
			f.tops = append(f.tops, topDecl{line: i, names: []string{m[1]}, fn: true})
		} else if m := luaTopLocals.FindStringSubmatch(text); m != nil && !strings.HasPrefix(text, "local function") {
			names := strings.Split(m[1], ",")
			for k := range names {
				names[k] = strings.TrimSpace(names[k])
			}
			f.tops = append(f.tops, topDecl{line: i, names: names, init: m[2] != ""})
		}
		i++
	}
	return f, nil
}

// isSlot reports whether name is a slot (a folder of lua/ whose files
// are alternatives; other folders hold plain modules, named with their
// folder: "groups/take").
func isSlot(name string) bool {
	_, ok := slotDefaults[name]
	return ok
}

// slotDefaults is the file a slot takes when the variant does not say.
var slotDefaults = map[string]string{
	"ready":  "plain",
	"limits": "none",
	"kidx":   "none",
	"wf":     "none",
	"adds":   "plain",
}

// luaBuild is a script assembled from its files.
type luaBuild struct {
	files []*luaFile // modules in load order, the script last
	keys  []int      // indexes in keyTable: the lead keys sorted, the others sorted, then the tail keys sorted
	lead  int        // how many keys at the start of keys are lead keys
	tail  int        // how many keys at the end of keys are tail keys
	conf  []string   // settings fields read, in the order first declared
	marks []string   // marks fields read
	flags string
	eval  bool // a plain script (@eval)
	// undeclared are keys a test took out of KEYS (undeclare).
	undeclared []int
}

// assemble builds script name with the slot choices impl.
func assemble(name string, impl map[string]string) (*luaBuild, error) {
	if f := luaFileNamed(name); f != nil && f.eval {
		return assembleEval(f)
	}
	b := &luaBuild{}
	seen := map[string]bool{}
	var visit func(n string, from string) error
	visit = func(n, from string) error {
		if isSlot(n) {
			choice := impl[n]
			if choice == "" {
				choice = slotDefaults[n]
			}
			n = path.Join(n, choice)
		}
		if seen[n] {
			return nil
		}
		seen[n] = true
		f := luaFileNamed(n)
		if f == nil {
			return fmt.Errorf("lua/%s.lua (included by %s) does not exist", n, from)
		}
		if f.eval {
			return fmt.Errorf("lua/%s.lua (included by %s) is a plain script (@eval), not a module", n, from)
		}
		for _, inc := range f.includes {
			if err := visit(inc, n); err != nil {
				return err
			}
		}
		b.files = append(b.files, f)
		return nil
	}
	if err := visit("base", name); err != nil {
		return nil, err
	}
	if err := visit(name, name); err != nil {
		return nil, err
	}
	if b.files[len(b.files)-1].name != name {
		return nil, fmt.Errorf("lua/%s.lua is a module, not a script", name)
	}
	idx, tail, lead := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, f := range b.files {
		for _, k := range f.keys {
			idx[keyIndex[k]] = true
		}
		for _, k := range f.lead {
			lead[keyIndex[k]] = true
		}
		for _, k := range f.tail {
			tail[keyIndex[k]] = true
		}
		for _, c := range f.conf {
			if !slices.Contains(b.conf, c) {
				b.conf = append(b.conf, c)
			}
		}
		for _, m := range f.marks {
			if !slices.Contains(b.marks, m) {
				b.marks = append(b.marks, m)
			}
		}
	}
	if len(b.conf)+len(b.marks) > 0 {
		idx[keyIndex["marks"]] = true
	}
	// A lead key is one whoever else declares it; a tail key stays one
	// unless some file declares it as an ordinary key (or a lead one).
	for i := range lead {
		b.keys = append(b.keys, i)
	}
	slices.Sort(b.keys)
	b.lead = len(b.keys)
	for i := range idx {
		if !lead[i] {
			b.keys = append(b.keys, i)
		}
	}
	slices.Sort(b.keys[b.lead:])
	n := len(b.keys)
	for i := range tail {
		if !idx[i] && !lead[i] {
			b.keys = append(b.keys, i)
		}
	}
	slices.Sort(b.keys[n:])
	b.tail = len(b.keys) - n
	b.flags = b.files[len(b.files)-1].flags
	return b, nil
}

// assembleEval builds plain script f (@eval), which holds its own code
// alone: it may declare its keys and flags, nothing that needs another
// file.
func assembleEval(f *luaFile) (*luaBuild, error) {
	if len(f.includes)+len(f.conf)+len(f.marks)+len(f.lead)+len(f.tail) > 0 {
		return nil, fmt.Errorf("lua/%s.lua is a plain script (@eval): it may declare @keys and @flags, no @include, @conf, @marks, @leadkeys or @tailkeys", f.name)
	}
	b := &luaBuild{files: []*luaFile{f}, flags: f.flags, eval: true}
	for _, k := range f.keys {
		if i := keyIndex[k]; !slices.Contains(b.keys, i) {
			b.keys = append(b.keys, i)
		}
	}
	slices.Sort(b.keys)
	return b, nil
}

// evalKeyBinds returns the Lua that binds a plain script's keys (@eval)
// to its locals K_<name>, from KEYS.
func (b *luaBuild) evalKeyBinds() string {
	if len(b.keys) == 0 {
		return ""
	}
	names, vals := make([]string, len(b.keys)), make([]string, len(b.keys))
	for i, k := range b.keys {
		names[i] = "K_" + keyTable[k].name
		vals[i] = "KEYS[" + strconv.Itoa(i+1) + "]"
	}
	return "local " + strings.Join(names, ", ") + " = " + strings.Join(vals, ", ") + "\n"
}

// moduleName is the name a file's reset function carries: a slot's name
// for the files of a slot, else the file's.
func moduleName(file string) string {
	if i := strings.IndexByte(file, '/'); i >= 0 {
		return file[:i]
	}
	return file
}

// resets returns the calls of the reset functions b's modules define.
func (b *luaBuild) resets() string {
	var out strings.Builder
	for _, f := range b.files[:len(b.files)-1] {
		fn := "reset_" + moduleName(f.name)
		if strings.Contains(f.src, "\nlocal function "+fn+"()") {
			out.WriteString(fn + "() ")
		}
	}
	return out.String()
}

// firsts returns the calls of the first functions b's modules define: a
// module's first_<module>() runs after the keys are bound and before the
// reset functions, so it can serve a whole call without the set-up of
// the others. It returns the call's reply, or nil to leave the call to
// the rest of the script.
func (b *luaBuild) firsts() string {
	return b.hooks("first_")
}

// hooks returns the calls of the functions named prefix+<module> that b's
// modules define, each returning the call's reply or nil.
func (b *luaBuild) hooks(prefix string) string {
	var out strings.Builder
	for _, f := range b.files[:len(b.files)-1] {
		fn := prefix + moduleName(f.name)
		if strings.Contains(f.src, "\nlocal function "+fn+"()") {
			out.WriteString("local r = " + fn + "() if r then return r end ")
		}
	}
	return out.String()
}

// keyBinds returns the Lua that sets K's fields from KEYS (from the
// variable keys).
func (b *luaBuild) keyBinds(keys string) string {
	var out strings.Builder
	for i, k := range b.keys {
		out.WriteString("K." + keyTable[k].name + " = " + keys + "[" + strconv.Itoa(i+1) + "] ")
	}
	// A key taken out of KEYS by a test (undeclare) is still found, built
	// from the first key's tag as scripts once built their keys: the key
	// check must catch it.
	for _, k := range b.undeclared {
		out.WriteString("K." + keyTable[k].name + " = string.match(" + keys + "[1], '^({[^}]*}:)') .. '" + keyTable[k].suffix + "' ")
	}
	out.WriteString("K_N = " + strconv.Itoa(len(b.keys)))
	return out.String()
}

// undeclare takes the key named name out of b's KEYS, for the test that
// shows the key check at work (keyBinds).
func (b *luaBuild) undeclare(name string) {
	i := keyIndex[name]
	if slices.Contains(b.keys[len(b.keys)-b.tail:], i) {
		b.tail--
	}
	if slices.Contains(b.keys[:b.lead], i) {
		b.lead--
	}
	b.keys = slices.DeleteFunc(b.keys, func(k int) bool { return k == i })
	b.undeclared = append(b.undeclared, i)
}

// readers returns read_fields, which reads the fields b's files declare
// into the tables C (settings) and M (marks) in one HMGET of the marks
// hash.
func (b *luaBuild) readers() string {
	var out, lhs, rhs strings.Builder
	out.WriteString("local C, M = {}, {}\n")
	out.WriteString("local function read_fields()\n")
	n := 0
	for _, g := range []struct {
		table  string
		fields []string
	}{{"C", b.conf}, {"M", b.marks}} {
		for _, f := range g.fields {
			if n > 0 {
				lhs.WriteString(", ")
				rhs.WriteString(", ")
			}
			n++
			lhs.WriteString(g.table + "." + f)
			rhs.WriteString("v[" + strconv.Itoa(n) + "]")
		}
	}
	if n > 0 {
		out.WriteString("  local v = redis.call('HMGET', K.marks")
		for _, f := range slices.Concat(b.conf, b.marks) {
			out.WriteString(", '" + f + "'")
		}
		out.WriteString(")\n  " + lhs.String() + " = " + rhs.String() + "\n")
	}
	out.WriteString("end\n")
	return out.String()
}

// readsFieldsFirst reports whether the script's body starts with
// read_fields(), which sets every field of C and M (to nil when the marks
// hold none): clearing them first would be work for nothing.
func (b *luaBuild) readsFieldsFirst() bool {
	for line := range strings.Lines(b.body()) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		return line == "read_fields()"
	}
	return false
}

// resetFields returns the Lua that clears the fields read_fields reads, at
// the start of every call (written out: a call of a function of its own
// costs about a thousand instructions).
func (b *luaBuild) resetFields() string {
	var out strings.Builder
	for _, g := range []struct {
		table  string
		fields []string
	}{{"C", b.conf}, {"M", b.marks}} {
		for _, f := range g.fields {
			out.WriteString(g.table + "." + f + " = nil ")
		}
	}
	return out.String()
}

// modules returns the source of b's modules, in order, each in a block of
// its own (scoped): the top-level locals a later file names (and the
// reset functions) are declared before the block and assigned in it, the
// others stay the module's own. A script's chunk may hold at most 200
// locals at once, which the modules of the largest variants would pass
// were they all kept; and a module's helpers stay its own.
func (b *luaBuild) modules() string {
	n := len(b.files)
	var out strings.Builder
	size := 0
	for _, f := range b.files[:n-1] {
		size += len(f.code) + len(f.name) + 64
	}
	out.Grow(size)
	for i, f := range b.files[:n-1] {
		// used: whether a file after module i names id.
		used := func(id string) bool {
			for _, g := range b.files[i+1:] {
				if g.idents[id] {
					return true
				}
			}
			return false
		}
		out.WriteString("-- [" + f.name + ".lua]\n")
		decl, body := scopeModule(f, used)
		if len(decl) > 0 {
			out.WriteString("local " + strings.Join(decl, ", ") + "\n")
		}
		out.WriteString("do\n" + body)
		if !strings.HasSuffix(body, "\n") {
			out.WriteByte('\n')
		}
		out.WriteString("end\n")
	}
	return out.String()
}

var (
	luaTopFunc   = regexp.MustCompile(`^local function ([A-Za-z_][A-Za-z0-9_]*)\(`)
	luaTopLocals = regexp.MustCompile(`^local ([A-Za-z_][A-Za-z0-9_]*(?:, *[A-Za-z_][A-Za-z0-9_]*)*)( *=.*)?$`)
)

// luaIdents returns the identifiers src's code names (not in comments or
// strings, not fields after '.' or ':'): each longest run of letters,
// digits and '_' that starts with a letter or '_', as the regexp
// [A-Za-z_][A-Za-z0-9_]* finds them (TestLuaIdents), scanned by hand: it
// runs at every process's start, over every file of lua/.
func luaIdents(src string) []string {
	code := luaCode(src)
	var out []string
	for i := 0; i < len(code); {
		if !identStart(code[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(code) && (identStart(code[j]) || '0' <= code[j] && code[j] <= '9') {
			j++
		}
		if !(i > 0 && (code[i-1] == '.' || code[i-1] == ':') && !(i > 1 && code[i-2] == '.')) {
			out = append(out, code[i:j])
		}
		i = j
	}
	return out
}

func identStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

// scopedBodies are scopeModule's blocks, by module and exports.
var scopedBodies sync.Map // string -> string

// scopeModule rewrites module f for a block of its own: its top-level
// locals (lines that start with "local") that a later file names (used),
// or reset functions, become assignments to locals declared before the
// block, which it returns. A line that declares names without values
// ("local a, b, c") gives up only those a later file names and keeps the
// others in the block, since each name declared before the block takes
// one of the 200 locals a script's chunk may hold; a line that gives
// values goes whole.
func scopeModule(f *luaFile, used func(string) bool) (decl []string, body string) {
	change := map[int]string{}
	for _, d := range f.tops {
		export := d.fn && (strings.HasPrefix(d.names[0], "reset_") || strings.HasPrefix(d.names[0], "first_"))
		var own []string // the names no later file names
		for _, name := range d.names {
			if used(name) {
				export = true
			} else {
				own = append(own, name)
			}
		}
		switch {
		case !export:
		case d.fn, d.init:
			decl = append(decl, d.names...)
			change[d.line] = "strip"
		case len(own) > 0:
			for _, name := range d.names {
				if !slices.Contains(own, name) {
					decl = append(decl, name)
				}
			}
			change[d.line] = "local " + strings.Join(own, ", ") + "\n"
		default:
			decl = append(decl, d.names...)
			change[d.line] = "drop" // declared before the block: nil already
		}
	}
	if len(change) == 0 {
		return nil, f.code
	}
	// The same module with the same exports is the same block in every
	// script that holds it: made once.
	key := f.name + "\x00" + strings.Join(decl, ",")
	if body, ok := scopedBodies.Load(key); ok {
		return decl, body.(string)
	}
	defer func() { scopedBodies.Store(key, body) }()
	var b strings.Builder
	b.Grow(len(f.code))
	i := 0
	for line := range strings.Lines(f.code) {
		switch c := change[i]; c {
		case "":
		case "strip":
			line = strings.TrimPrefix(line, "local ")
		case "drop":
			line = "\n"
		default:
			line = c // the names the block keeps
		}
		b.WriteString(line)
		i++
	}
	return decl, b.String()
}

// luaCode returns src with its comments removed and each string an empty
// one, its lines kept (luaLex): the code whose words and lines the
// loader and the tests read.
func luaCode(src string) string { return luaLex(src, true) }

// luaStrip returns src without its comments, its strings as they are and
// every line where it was (a comment's line is left empty), so that a
// script keeps the line numbers it would have with them (luaLex): what
// is sent to Redis. Comments were 44 % of the libraries' source, which
// every server stores (FUNCTION LOAD keeps it, and a server holds every
// variant a version calls) and a start-up check sends to a server
// without them.
func luaStrip(src string) string { return luaLex(src, false) }

// luaLex returns src without its comments and the blanks they leave at
// the end of a line, with every line kept, and each string made empty
// or left as it is. It reads "--" to the end of the line: lua/ has no long
// brackets (--[[ ]] or [[ ]]), which TestLuaHasNoLongBrackets keeps so.
func luaLex(src string, emptyStrings bool) string {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
			for len(out) > 0 && (out[len(out)-1] == ' ' || out[len(out)-1] == '\t') {
				out = out[:len(out)-1]
			}
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			if emptyStrings {
				out = append(out, "''"...)
			} else {
				out = append(out, src[i:j+1]...)
			}
			i = j
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// body returns the script's own code, as sent (luaStrip).
func (b *luaBuild) body() string { return b.files[len(b.files)-1].code }

// luaConsts are the constants Lua shares with Go, written once in Go: the
// loader declares them ahead of every script (TestLuaConsts checks that
// no Lua file defines them again).
var luaConsts = []struct {
	name string
	val  int64
	str  bool // also as a string: <name>_S
}{
	{"MAX_ERRORS", store.MaxErrorHistory, false},
	{"MAX_LOG_LINES", store.MaxLogLines, false},
	{"MIN_PRIORITY", store.MinPriority, false},
	{"MAX_PRIORITY", store.MaxPriority, false},
	{"QUANTUM", store.GroupQuantum, false},
	{"EV_DEFAULT_MAXLEN", store.DefaultEventsMaxLen, true},
	{"KEEP_MINUTES", store.ThroughputMinutes, false},
	{"KEEP_HOURS", store.ThroughputHours, false},
	{"WF_LEASE", wfLeaseMs, false},
	{"DEPTH_GROUPS", depthGroups, false},
	{"RATE_SWEEP", rateSweep, false},
	{"LEAN_UNTIL", leanUntilMs, true},
}

// depthGroups is how many groups' oldest job QueueStats reads at most
// (store.QueueStats.Latency), and rateSweep how many groups' rate logs
// Maintain looks at in one pass, once a minute (lua/groups/rate.lua).
const (
	depthGroups = 100
	rateSweep   = 500
)

// leanUntilMs is when a queue's lean mark expires, in Unix ms (in 2286):
// its PTTL is that minus the store's clock (lua/lean.lua).
const leanUntilMs = 9999999999999

// luaTexts are the strings Lua shares with Go: errors the scripts record
// themselves, and the wire keys of fields they keep.
var luaTexts = []struct{ name, val string }{
	{"CANCELLED_TEXT", store.ErrCancelled.Error()},
	{"LEASE_EXPIRED_TEXT", store.ErrLeaseExpired.Error()},
	{"UNIQUE_FOR_KEY", wireKey("UniqueFor")},
}

// wireKey returns the wire key of store.JobSpec's field name (its key in
// the envelope's options map).
func wireKey(name string) string {
	f, ok := reflect.TypeFor[store.JobSpec]().FieldByName(name)
	if !ok || f.Tag.Get("wire") == "" {
		panic("redisstore: store.JobSpec has no field " + name + " with a wire key")
	}
	return f.Tag.Get("wire")
}

// constsSrc declares the luaConsts and luaTexts that lb's files name, in
// Lua.
func constsSrc(lb *luaBuild) string {
	var b strings.Builder
	named := func(c string) bool {
		for _, f := range lb.files {
			if f.idents[c] || f.idents[c+"_S"] {
				return true
			}
		}
		return false
	}
	for _, c := range luaTexts {
		if !named(c.name) {
			continue
		}
		b.WriteString("local " + c.name + " = " + strconv.Quote(c.val) + "\n")
	}
	for _, c := range luaConsts {
		if !named(c.name) {
			continue
		}
		v := strconv.FormatInt(c.val, 10)
		b.WriteString("local " + c.name + " = " + v + "\n")
		if c.str {
			b.WriteString("local " + c.name + "_S = '" + v + "'\n")
		}
	}
	return b.String()
}

// scriptFiles returns the files of lua/ that are scripts: those no other
// file includes.
func scriptFiles() []string {
	included := map[string]bool{}
	for _, f := range luaFiles() {
		for _, inc := range f.includes {
			included[inc] = true
		}
	}
	var out []string
	for name := range luaFiles() {
		if !strings.Contains(name, "/") && !included[name] && name != "base" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
