package main

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// usageToken matches what a usage line names: a flag, or an argument
// that may be repeated (ID..., NAME...).
var usageToken = regexp.MustCompile(`--[a-z][a-z-]*|\b[A-Z]+\.\.\.`)

// storeFlag reports whether flag is one of the store flags, which every
// command that talks to Redis takes and the docs give once.
func storeFlag(flag string) bool {
	return flag == "--redis" || flag == "--cluster" || strings.HasPrefix(flag, "--redis-")
}

// usageTokens returns the flags and repeated arguments text names, but
// the store flags.
func usageTokens(text string) map[string]bool {
	out := map[string]bool{}
	for _, tok := range usageToken.FindAllString(text, -1) {
		if !storeFlag(tok) {
			out[tok] = true
		}
	}
	return out
}

// commandHelp runs "hopper args... -h" and returns its usage line and the
// flags it lists, but the store flags.
func commandHelp(t *testing.T, c *cli, args ...string) (line string, flags []string) {
	t.Helper()
	r := c.run(t, append(args, "-h")...)
	wantCode(t, r, 0, strings.Join(args, " ")+" -h")
	line, _, _ = strings.Cut(r.stderr, "\n")
	for _, l := range strings.Split(r.stderr, "\n") {
		if name, ok := strings.CutPrefix(l, "  -"); ok {
			if flag := "--" + strings.Fields(name)[0]; !storeFlag(flag) {
				flags = append(flags, flag)
			}
		}
	}
	return line, flags
}

// subLines returns the lines of a group's usage about sub: those that
// start with it, and the lines indented further that go on from them.
func subLines(usage, sub string) string {
	var out []string
	in := false
	for _, l := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(l, "  "+sub+" "):
			in = true
		case in && strings.HasPrefix(l, "   "):
		default:
			in = false
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// groups are the commands with subcommands whose usage lines name their
// flags. queues set and migrate's subcommands say "..." and "[flags]"
// instead, and list their flags below.
var groups = map[string][]string{
	"jobs":      {"list", "show", "retry", "delete", "cancel", "reschedule"},
	"workflows": {"list", "show", "cancel", "retry"},
	"schedules": {"list", "pause", "resume", "respec", "delete"},
}

// TestUsageNamesEveryFlag: a subcommand's usage line names every flag it
// takes (but the store flags), and the lines of its group's help
// ("hopper jobs -h") name the same flags and repeated arguments; hopper
// check's usage line names its flags. "hopper jobs -h" gave list without
// --offset, --from and --no-redact (and show without --no-redact, which
// neither usage line of show nor of list named), "hopper schedules -h"
// gave respec one NAME, and check's line had no --timeout.
func TestUsageNamesEveryFlag(t *testing.T) {
	c := &cli{}
	for group, subs := range groups {
		r := c.run(t, group, "-h")
		wantCode(t, r, 0, group+" -h")
		for _, sub := range subs {
			line, flags := commandHelp(t, c, group, sub)
			own := usageTokens(line)
			for _, f := range flags {
				if !own[f] {
					t.Errorf("hopper %s %s -h: the usage line %q does not name %s", group, sub, line, f)
				}
			}
			if lines := subLines(r.stdout+r.stderr, sub); !maps.Equal(usageTokens(lines), own) {
				t.Errorf("hopper %s -h gives %s as\n%s\nnaming %v; its own usage line %q names %v", group, sub, lines,
					slices.Sorted(maps.Keys(usageTokens(lines))), line, slices.Sorted(maps.Keys(own)))
			}
		}
	}
	line, flags := commandHelp(t, c, "check")
	for _, f := range flags {
		if !usageTokens(line)[f] {
			t.Errorf("hopper check -h: the usage line %q does not name %s", line, f)
		}
	}
}

// readDoc returns the text of a page of the guide.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docSection returns the part of page under the heading "### hopper
// command", up to the next heading.
func docSection(page, command string) string {
	_, rest, ok := strings.Cut(page, "\n### hopper "+command+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// TestDocsShowTheCLI: the usage text docs/dashboard-and-cli.md shows is
// what the commands print, its section of each command names every flag
// the command takes (but the store flags, given once above them), and
// docs/production-checklist.md names every flag of hopper check. The
// guide named no --timeout for hopper check, and showed the usage lines
// that left out flags and arguments (TestUsageNamesEveryFlag).
func TestDocsShowTheCLI(t *testing.T) {
	c := &cli{}
	page := readDoc(t, "dashboard-and-cli.md")
	blocks := regexp.MustCompile("(?s)```text\n(usage: hopper .*?)```").FindAllStringSubmatch(page, -1)
	if len(blocks) < 8 {
		t.Fatalf("%d usage blocks in dashboard-and-cli.md, want one per command", len(blocks))
	}
	for _, b := range blocks {
		block := b[1]
		command := strings.Fields(block)[2]
		if command == "outbox" {
			continue // a program of its own, hopper-outbox
		}
		r := c.run(t, command, "-h")
		help := r.stdout + r.stderr
		for _, l := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
			if !strings.Contains(help, strings.TrimRight(l, " ")) {
				t.Errorf("dashboard-and-cli.md shows, for hopper %s,\n%s\nwhich hopper %s -h does not print:\n%s", command, l, command, help)
			}
		}
	}
	commands := [][]string{{"demo"}, {"dashboard"}, {"stats"}, {"queues", "set"}, {"queues", "groups"}, {"queues", "group-limit"}, {"events"}, {"migrate", "status"}, {"migrate", "up"}, {"check"}}
	for group, subs := range groups {
		for _, sub := range subs {
			commands = append(commands, []string{group, sub})
		}
	}
	for _, args := range commands {
		section := docSection(page, args[0])
		_, flags := commandHelp(t, c, args...)
		for _, f := range flags {
			if !regexp.MustCompile(regexp.QuoteMeta(f) + `\b`).MatchString(section) {
				t.Errorf("dashboard-and-cli.md, ### hopper %s: does not name %s of hopper %s", args[0], f, strings.Join(args, " "))
			}
		}
	}
	checklist := readDoc(t, "production-checklist.md")
	_, flags := commandHelp(t, c, "check")
	for _, f := range flags {
		if !strings.Contains(checklist, f) {
			t.Errorf("production-checklist.md does not name %s of hopper check", f)
		}
	}
}
