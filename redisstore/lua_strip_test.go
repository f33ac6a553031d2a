package redisstore

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestLuaStrip(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a comment's line stays, empty", "local a = 1\n-- why\n  -- indented\nreturn a\n", "local a = 1\n\n\nreturn a\n"},
		{"a comment after code goes with its blanks", "local a = 1 -- one\t \nreturn a", "local a = 1\nreturn a"},
		{"a directive is a comment", "--- @keys jobs ready\nlocal x\n", "\nlocal x\n"},
		{"-- in a string stays", "local s = 'a -- b' .. \"c -- d\" -- gone\n", "local s = 'a -- b' .. \"c -- d\"\n"},
		{"an escaped quote ends no string", "local s = 'it\\'s -- kept' -- gone\n", "local s = 'it\\'s -- kept'\n"},
		{"the last line without a newline", "return 1 -- end", "return 1"},
		{"a minus is no comment", "local a = b - 1 - -c\n", "local a = b - 1 - -c\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := luaStrip(c.src); got != c.want {
				t.Errorf("luaStrip(%q) = %q, want %q", c.src, got, c.want)
			}
		})
	}
}

// longBracket is the opening of a Lua long string or block comment.
var longBracket = regexp.MustCompile(`\[=*\[`)

// TestLuaHasNoLongBrackets keeps lua/ within what luaStrip and luaCode
// read: comments to the end of their line, strings in quotes. Each file
// keeps its lines, so a Lua error's line number is the file's.
func TestLuaHasNoLongBrackets(t *testing.T) {
	for name, f := range luaFiles() {
		for i, line := range strings.Split(f.src, "\n") {
			if code, comment, _ := strings.Cut(line, "--"); longBracket.MatchString(code) || strings.HasPrefix(comment, "[") && longBracket.MatchString(comment) {
				t.Errorf("lua/%s.lua:%d has a long bracket, which luaStrip does not read: %s", name, i+1, strings.TrimSpace(line))
			}
		}
		if got, want := strings.Count(f.code, "\n"), strings.Count(f.src, "\n"); got != want {
			t.Errorf("lua/%s.lua: %d lines sent, %d in the file", name, got, want)
		}
	}
}

// luaIdent is what luaIdents scans for by hand.
var luaIdent = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// TestLuaIdents: the hand-written scan finds the identifiers the regexp
// does, in every file of lua/ and in the corners (digits, fields, "..").
func TestLuaIdents(t *testing.T) {
	want := func(src string) []string {
		code := luaCode(src)
		var out []string
		for _, loc := range luaIdent.FindAllStringIndex(code, -1) {
			if loc[0] > 0 && (code[loc[0]-1] == '.' || code[loc[0]-1] == ':') && !(loc[0] > 1 && code[loc[0]-2] == '.') {
				continue
			}
			out = append(out, code[loc[0]:loc[1]])
		}
		return out
	}
	srcs := []string{"local x1 = 0x1F + 2e5 .. a.b:c(d..e) -- f\nreturn _g9, 'h'", "", "a", "9", "..x", ".y", ":z"}
	for _, f := range luaFiles() {
		srcs = append(srcs, f.src)
	}
	for _, src := range srcs {
		if got, want := luaIdents(src), want(src); !slices.Equal(got, want) {
			t.Errorf("luaIdents(%.60q...) = %d identifiers, the regexp finds %d", src, len(got), len(want))
		}
	}
}
