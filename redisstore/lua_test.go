package redisstore

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// scriptFiles returns the files of lua/ that are scripts: those no other
// file includes.
func scriptFiles() []string {
	included := map[string]bool{}
	for _, f := range luaFiles {
		for _, inc := range f.includes {
			included[inc] = true
		}
	}
	var out []string
	for name := range luaFiles {
		if !strings.Contains(name, "/") && !included[name] && name != "base" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

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
}

// luaCode returns src with its comments removed and its strings emptied.
func luaCode(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '\'' || c == '"':
			i++
			for i < len(src) && src[i] != c {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			b.WriteString("''")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
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
