package redisstore

import (
	goflag "flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/store"
)

// testVariants are the variants every script is checked in: each file of
// every slot at least once.
var testVariants = []variant{
	{},
	{shape: shapePrio},
	{shape: shapeGroups | shapeLimits | shapeKinds},
	{shape: shapePrio | shapeLimits, wf: "record"},
	{shape: shapeKinds, wf: "local", adds: "extras"},
	full,
}

// luaBuiltins are the globals Redis's Lua gives scripts.
var luaBuiltins = map[string]bool{
	"tonumber": true, "tostring": true, "type": true, "pairs": true, "ipairs": true, "unpack": true,
	"select": true, "error": true, "setmetatable": true, "pcall": true, "assert": true, "next": true,
	"rawget": true, "rawset": true, "function": true, "and": true, "or": true, "not": true, "return": true,
	"if": true, "elseif": true, "while": true, "until": true, "in": true,
	"rcall": true, // redis.call, declared by every script's frame (functions.go: rcallSet)
}

var (
	luaCall    = regexp.MustCompile(`(^|[^.:\w])([A-Za-z_]\w*)\s*\(`)
	luaDefined = regexp.MustCompile(`local\s+function\s+(\w+)|local[ \t]+([\w \t,]+?)[ \t]*=|local[ \t]+([\w \t,]+)\n|\n(\w+)\s*=\s*function`)
	luaParams  = regexp.MustCompile(`function\s*\w*\s*\(([\w\s,.]*)\)`)
)

// TestLuaIncludes checks that every function a script calls is defined by
// the files it holds (the directives of lua/ declare every include): a
// missing one would fail only when a call reaches it.
func TestLuaIncludes(t *testing.T) {
	for _, name := range scriptFiles() {
		for _, v := range testVariants {
			impl := v.shape.slots()
			if v.wf != "" {
				impl["wf"] = v.wf
			}
			if v.adds != "" {
				impl["adds"] = v.adds
			}
			b, err := assemble(name, impl)
			if err != nil {
				t.Fatal(err)
			}
			src := "\n" + b.readers() + b.modules() + b.body()
			code := luaCode(src)
			defined := map[string]bool{}
			for _, m := range luaDefined.FindAllStringSubmatch(code, -1) {
				for _, g := range m[1:] {
					for _, n := range strings.Split(g, ",") {
						defined[strings.TrimSpace(n)] = true
					}
				}
			}
			for _, m := range luaParams.FindAllStringSubmatch(code, -1) {
				for _, n := range strings.Split(m[1], ",") {
					defined[strings.TrimSpace(n)] = true
				}
			}
			for _, m := range luaCall.FindAllStringSubmatch(code, -1) {
				fn := m[2]
				if !defined[fn] && !luaBuiltins[fn] && fn != "main" && !strings.HasPrefix(fn, "reset_") {
					t.Errorf("lua/%s.lua (%+v): calls %s, which none of its files defines", name, v, fn)
				}
			}
		}
	}
}

// TestKeyCheckCatchesUndeclaredKey shows the key check (keycheck.go) at
// work: a claim whose script still finds its unack set, attempt info or
// token counter, but was not given it in KEYS (a key built from another,
// as scripts once did), fails with an error naming the key; the claim as
// built succeeds.
func TestKeyCheckCatchesUndeclaredKey(t *testing.T) {
	if !keyCheck {
		t.Fatal("the key check is off: TestMain turns it on for every test of the package")
	}
	ctx := t.Context()
	rdb := redistest.Start(t).Client(t)
	s := New(rdb, &Config{Prefix: redistest.Prefix(t), NoCoalescing: true})
	k := s.queueKeys("q")
	claim := func(sc *script) error {
		keys := make([]string, len(sc.keys))
		for i, ki := range sc.keys {
			keys[i] = k.all[ki]
		}
		return sc.eval.Run(ctx, rdb, keys, 1, 60000, 1000, "w").Err()
	}
	for _, name := range []string{"unack", "att", "tokens", "jobs"} {
		if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: "j-" + name, Queue: "q", Kind: "k"}}); err != nil {
			t.Fatal(err)
		}
		b, err := assemble("claim", nil)
		if err != nil {
			t.Fatal(err)
		}
		b.undeclare(name)
		err = claim(buildScript("claim.without-"+name, b, 0, shapeAll))
		if err == nil || !strings.Contains(err.Error(), "keycheck: ") || !strings.Contains(err.Error(), k.all[keyIndex[name]]) {
			t.Errorf("claim without %s in KEYS: %v; want the key check to name %s", name, err, k.all[keyIndex[name]])
		}
	}
	if err := claim(scriptFor("claim", variant{})); err != nil {
		t.Fatalf("claim with its KEYS: %v", err)
	}
	// The checked scripts load as functions too: the suites run them so.
	if !s.fmode.on.Load() {
		t.Fatal("the server refused the checked scripts as functions")
	}
}

// allVariants returns every distinct variant of every script: each shape
// with each choice of the wf and adds slots.
func allVariants() []*script {
	seen := map[*script]bool{}
	var out []*script
	for _, name := range scriptFiles() {
		for sh := shape(0); sh <= shapeAll; sh++ {
			for _, wf := range []string{"", "record", "local"} {
				for _, adds := range []string{"", "extras"} {
					sc := scriptFor(name, variant{shape: sh, wf: wf, adds: adds})
					if !seen[sc] {
						seen[sc] = true
						out = append(out, sc)
					}
				}
			}
		}
	}
	return out
}

// localsRoom is how many more locals every variant's chunk must have room
// for (TestEveryVariantLoads): Lua allows 200 at once, and every module's
// top-level local that a later file names takes one in every script that
// holds the module.
const localsRoom = 10

// TestEveryVariantLoads loads every variant of every script on a server,
// as a function library and as a plain script: a variant that does not
// compile (Lua's limit of 200 locals in a chunk, say) would otherwise
// make the store fall back to plain scripts for good, or fail its calls.
// Each variant must also compile with localsRoom more locals ahead of its
// code, so that the next module's local is not the one that breaks the
// largest variants.
func TestEveryVariantLoads(t *testing.T) {
	ctx := t.Context()
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	var extra strings.Builder
	for i := range localsRoom {
		fmt.Fprintf(&extra, "local room_%d = %d\n", i, i)
	}
	all := allVariants()
	for _, sc := range all {
		if sc.plain {
			if sc.lib != "" {
				t.Errorf("%s is a plain script (@eval) with a library", sc.name)
			}
		} else if err := rdb.FunctionLoad(ctx, sc.lib).Err(); err != nil {
			t.Errorf("FUNCTION LOAD of %s: %v", sc.name, err)
		}
		if err := sc.eval.Load(ctx, rdb).Err(); err != nil {
			t.Errorf("SCRIPT LOAD of %s: %v", sc.name, err)
		}
		// After the first line: a script's flags must stay there.
		first, rest, _ := strings.Cut(sc.src, "\n")
		if err := rdb.ScriptLoad(ctx, first+"\n"+extra.String()+rest).Err(); err != nil {
			t.Errorf("%s has no room for %d more locals: %v", sc.name, localsRoom, err)
		}
	}
	t.Logf("%d variants loaded", len(all))
}

// luaFunc is a function of a Lua file: where it starts and how many lines
// of code (neither blank nor comment) it spans.
type luaFunc struct {
	line, code int
}

// luaFuncs returns the functions of src (nested ones too), found by
// matching function ... end over its code.
func luaFuncs(src string) []luaFunc {
	code := luaCode(src)
	lines := strings.Split(code, "\n")
	type open struct {
		fn   bool
		line int
	}
	var stack []open
	var out []luaFunc
	for i, l := range lines {
		for _, w := range luaIdent.FindAllString(l, -1) {
			switch w {
			case "function":
				stack = append(stack, open{true, i})
			case "if", "do", "repeat":
				stack = append(stack, open{false, i})
			case "end", "until":
				if len(stack) == 0 {
					continue
				}
				o := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if o.fn {
					n := 0
					for _, x := range lines[o.line : i+1] {
						if strings.TrimSpace(x) != "" {
							n++
						}
					}
					out = append(out, luaFunc{line: o.line + 1, code: n})
				}
			}
		}
	}
	return out
}

// codeLines counts the lines of src that hold code.
func codeLines(src string) int {
	n := 0
	for l := range strings.Lines(luaCode(src)) {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// TestLuaShort: the claim and finish skeletons are at most 80 lines of
// code, and so is every function of lua/ and every script's body (which a
// function library wraps in a function of its own). Features live in
// modules behind small functions.
func TestLuaShort(t *testing.T) {
	for _, name := range []string{"claim", "finish"} {
		if n := codeLines(luaFiles()[name].src); n > 80 {
			t.Errorf("lua/%s.lua is %d lines of code, over 80", name, n)
		}
	}
	for name, f := range luaFiles() {
		for _, fn := range luaFuncs(f.src) {
			if fn.code > 80 {
				t.Errorf("lua/%s.lua:%d: a function of %d lines of code, over 80", name, fn.line, fn.code)
			}
		}
	}
	for _, name := range scriptFiles() {
		if n := codeLines(luaFiles()[name].src); n > 80 {
			t.Errorf("lua/%s.lua: a body of %d lines of code, over 80", name, n)
		}
	}
}

// featureWords are what the code of a feature is named after: groups,
// priority levels, workflows and their tasks, the kind index.
var featureWords = regexp.MustCompile(`(?i)group|\bg_|prio|level|ready_[pn]\d|\bpm\b|wf|workflow|task|kidx|K\.kinds|kind index`)

// TestPlainVariantsCarryNoFeature: the variants a plain queue runs (its
// enqueue, claim and finish) hold no code of groups, priority levels,
// workflows or the kind index, and none of their keys: what a queue does
// not use costs it nothing.
func TestPlainVariantsCarryNoFeature(t *testing.T) {
	for _, c := range []struct {
		file string
		v    variant
	}{
		{"enqueue", variant{}}, {"enqueue", variant{adds: "extras"}}, {"claim", variant{}}, {"finish", variant{}},
	} {
		impl := c.v.shape.slots()
		if c.v.adds != "" {
			impl["adds"] = c.v.adds
		}
		b, err := assemble(c.file, impl)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range b.files {
			for i, line := range strings.Split(luaCode(f.src), "\n") {
				if m := featureWords.FindString(line); m != "" {
					t.Errorf("plain %s (%s): lua/%s.lua:%d names %q: %s", c.file, c.v.adds, f.name, i+1, m, strings.TrimSpace(line))
				}
			}
		}
		for _, k := range b.keys {
			if m := featureWords.FindString(keyTable[k].name); m != "" {
				t.Errorf("plain %s (%s) declares key %s", c.file, c.v.adds, keyTable[k].name)
			}
		}
	}
}

// luaOnly are the numeric constants Lua defines itself, with why no Go code
// shares them; any other is luaConsts' (TestLuaConsts).
var luaOnly = map[string]string{
	"CHUNK":        "the most arguments one redis.call takes through unpack: a bound of this Lua",
	"LEFT_WAKE_MS": "how often a claim that leaves jobs behind wakes idle workers: claim.lua's own pacing",
	"PAD_FIELDS":   "how many fields one HSET writes before call_chunked makes the hash a hash table: base.lua's own trade of memory for lookups",
	"SCHED_QUIET":  "how often a queue's last lease going wakes the schedulers: finish's own pacing",
	"SMALL_ADDS":   "up to how many jobs adds/plain.lua stores one HSETNX each: a trade between Redis's commands and Lua's tables",
	"UNHOLD_MAX":   "the most groups whose holds ended one claim puts back: groups/holds.lua's own bound on a script's time",
}

var luaNumConst = regexp.MustCompile(`(?m)^local ([A-Z][A-Z0-9_]*) = -?[0-9]`)

// TestLuaConsts: the constants Go and Lua share are written once, in Go
// (luaConsts, luaTexts): every one is used by some Lua file, none is
// defined by one, and a Lua file defines no other number constant than
// those luaOnly names.
func TestLuaConsts(t *testing.T) {
	shared := map[string]bool{}
	for _, c := range luaConsts {
		shared[c.name] = true
	}
	for _, c := range luaTexts {
		shared[c.name] = true
	}
	used := map[string]bool{}
	for name, f := range luaFiles() {
		for _, id := range luaIdents(f.src) {
			used[id] = true
		}
		for _, m := range luaNumConst.FindAllStringSubmatch(f.src, -1) {
			if _, ok := luaOnly[m[1]]; !ok {
				t.Errorf("lua/%s.lua defines %s: a constant Go shares comes from luaConsts, another one needs its reason in luaOnly", name, m[1])
			}
		}
		for c := range shared {
			if regexp.MustCompile(`(?m)^\s*local ` + c + `\b`).MatchString(f.src) {
				t.Errorf("lua/%s.lua defines %s again", name, c)
			}
		}
	}
	for c := range shared {
		if !used[c] {
			t.Errorf("no Lua file uses %s", c)
		}
	}
	for c := range luaOnly {
		if !used[c] {
			t.Errorf("no Lua file uses %s (luaOnly)", c)
		}
	}
}

var update = goflag.Bool("update", false, "rewrite LAYOUT.md")

// TestLayoutDoc keeps LAYOUT.md what keyTable says (go test -run
// TestLayoutDoc -update rewrites it).
func TestLayoutDoc(t *testing.T) {
	want := layoutDoc()
	if *update {
		if err := os.WriteFile("LAYOUT.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("LAYOUT.md")
	if err != nil || string(got) != want {
		t.Fatalf("LAYOUT.md is not what keyTable says (%v): run go test -run TestLayoutDoc -update", err)
	}
}

// TestWriteVariants writes the Lua of every variant of every script, as
// Redis runs it, into the folder HOPPER_LUA_OUT names (skipped without
// it): to read or grep what a queue of a given shape runs, e.g.
//
//	HOPPER_LUA_OUT=/tmp/lua go test -run TestWriteVariants ./redisstore
//	grep -ciE 'group|prio|level|workflow|kidx' /tmp/lua/claim..lua
func TestWriteVariants(t *testing.T) {
	dir := os.Getenv("HOPPER_LUA_OUT")
	if dir == "" {
		t.Skip("HOPPER_LUA_OUT names no folder")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sc := range allVariants() {
		if err := os.WriteFile(filepath.Join(dir, sc.name+".lua"), []byte(sc.src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTailKeysGoLast checks the order of every script's KEYS (lua.go):
// the lead keys in keyTable's order, then keyTable's order, then the tail
// keys in keyTable's order, none of them a key some file of the script
// declares as an ordinary one; that the call of one job due now, the only
// call sent without its tail keys, leaves out pending alone; and that the
// calls that may go with the lead keys alone are those of jobs due now,
// whose path (adds/plain.lua's early_adds and first_adds) touches jobs,
// ready and lean, early_adds reading them as KEYS[1] to KEYS[3].
func TestTailKeysGoLast(t *testing.T) {
	for _, name := range scriptFiles() {
		sc := fullScript(name)
		lead, head, tail := sc.keys[:sc.lead], sc.keys[sc.lead:len(sc.keys)-sc.tail], sc.keys[len(sc.keys)-sc.tail:]
		if !slices.IsSorted(lead) || !slices.IsSorted(head) || !slices.IsSorted(tail) {
			t.Errorf("%s: KEYS %v out of order (lead %d, tail %d)", name, sc.keys, sc.lead, sc.tail)
		}
		for _, k := range tail {
			if slices.Contains(head, k) || slices.Contains(lead, k) {
				t.Errorf("%s: key %s both ordinary and tail", name, keyTable[k].name)
			}
		}
		for _, k := range lead {
			if slices.Contains(head, k) {
				t.Errorf("%s: key %s both lead and ordinary", name, keyTable[k].name)
			}
		}
	}
	plain := scriptFor("enqueue", variant{})
	if plain.tail != 1 || keyTable[plain.keys[len(plain.keys)-1]].name != "pending" {
		t.Fatalf("plain enqueue: KEYS %v, tail %d; want pending alone at the end", plain.keys, plain.tail)
	}
	now := &encJob{queue: "q", id: "a", kind: "k", value: []byte("0,x")}
	later := &encJob{queue: "q", id: "b", kind: "k", value: []byte("0,x"), due: "+5"}
	var leads []string
	for _, k := range plain.keys[:plain.lead] {
		leads = append(leads, keyTable[k].name)
	}
	if !slices.Equal(leads, []string{"jobs", "ready", "lean"}) {
		t.Fatalf("plain enqueue: lead keys %v; want jobs, ready, lean", leads)
	}
	if c := enqueueCall("q", []*encJob{now}, true, 0); !c.tailless || !c.short || len(c.args) != 2 {
		t.Errorf("one job due now: tailless %v, short %v, %d arguments; want tailless, short, ID and value", c.tailless, c.short, len(c.args))
	}
	now2 := &encJob{queue: "q", id: "c", kind: "k", value: []byte("0,x")}
	if c := enqueueCall("q", []*encJob{now, now2}, true, 0); !c.short {
		t.Errorf("two jobs due now: not short")
	}
	for _, lean := range []bool{true, false} {
		for _, items := range [][]*encJob{{later}, {now, later}} {
			if c := enqueueCall("q", items, lean, 0); c.tailless || c.short {
				t.Errorf("%d jobs, one delayed: sent tailless (%v) or short (%v), without the pending key", len(items), c.tailless, c.short)
			}
		}
	}
	if c := enqueueCall("q", []*encJob{now}, false, 0); c.short {
		t.Errorf("one job due now, the lean way denied: sent short")
	}
}

// TestScopeModuleKeepsOwnNames: of a line that declares names without
// values, only the names a later file uses are declared ahead of the
// module's block (each takes one of a chunk's 200 locals); a line with
// values goes whole.
func TestScopeModuleKeepsOwnNames(t *testing.T) {
	src := "local a, b, c\nlocal x, y = 1, 2\nlocal function f() return a, c, x, y end\n"
	f, err := parseLua("probe", src)
	if err != nil {
		t.Fatal(err)
	}
	later := map[string]bool{"b": true, "y": true}
	decl, body := scopeModule(f, func(id string) bool { return later[id] })
	if want := []string{"b", "x", "y"}; !slices.Equal(decl, want) {
		t.Errorf("declared ahead of the block: %v, want %v", decl, want)
	}
	if want := "local a, c\nx, y = 1, 2\nlocal function f() return a, c, x, y end\n"; body != want {
		t.Errorf("block:\n%s\nwant:\n%s", body, want)
	}
}

// TestResetsReadNoFields guards what functions.go leaves out of a script
// whose body starts with read_fields(): the clearing of C's and M's
// fields before the reset functions run. No reset function may read them
// then (they hold the last call's values until read_fields).
func TestResetsReadNoFields(t *testing.T) {
	field := regexp.MustCompile(`\b[CM]\.[a-z]`)
	resets := 0
	for name, f := range luaFiles() {
		in := false
		for i, line := range strings.Split(luaCode(f.src), "\n") {
			if strings.HasPrefix(line, "local function reset_") {
				in = true
				resets++
			}
			if in && field.MatchString(line) {
				t.Errorf("%s:%d: a reset function reads a field of C or M: %s", name, i+1, line)
			}
			if line == "end" {
				in = false
			}
		}
	}
	if resets == 0 {
		t.Fatal("found no reset function in lua/")
	}
	if !scriptFor("claim", variant{}).shard.from.b.readsFieldsFirst() {
		t.Error("claim's body does not start with read_fields(); its C and M fields are cleared again")
	}
}
