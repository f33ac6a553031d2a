package docs

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/imports"
)

// A generated package of the Go check: whole files each get one, the
// fragments of a page one per kind (hopper's or a peer's).
type genPkg struct {
	dir   string // directory under the module
	whole bool   // a whole file, compiled exactly as written
	files map[string]string
}

// scopes are the names fragments of statements have in scope, per kind of
// fragment: hopper's, or a peer system's.
var scopes = map[string]string{
	"": `import (
	"context"

	"github.com/hopperq/hopper"
	"github.com/redis/go-redis/v9"
)

var (
	ctx    context.Context
	client *hopper.Client
	rdb    *redis.Client
	insp   *hopper.Inspector
	err    error
)
`,
	"asynq": "import \"context\"\n\nvar (\n\tctx context.Context\n\terr error\n)\n",
	"river": "import \"context\"\n\nvar (\n\tctx context.Context\n\terr error\n)\n",
}

// preferred are the packages a fragment's names mean when more than one
// module of the build has a package of that name: goimports keeps those a
// fragment uses and drops the rest.
const preferred = `import (
	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

`

// peerKind returns the peer a fragment belongs to ("asynq", "river"), or ""
// for hopper's own code.
func peerKind(code string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(code), "\n")
	switch strings.TrimSpace(first) {
	case "// asynq":
		return "asynq"
	case "// river":
		return "river"
	}
	return ""
}

// isWhole reports whether a Go block is a whole file: it starts with a
// package clause (after comments).
func isWhole(code string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", code, parser.PackageClauseOnly)
	return err == nil && f.Name != nil
}

// isDecl reports whether a fragment starts with a declaration.
func isDecl(code string) bool {
	for line := range strings.Lines(code) {
		s := strings.TrimSpace(line)
		if s == "" || strings.HasPrefix(s, "//") {
			continue
		}
		for _, kw := range []string{"func ", "type ", "var ", "const ", "import ", "import("} {
			if strings.HasPrefix(s, kw) {
				// "func(" starts a statement (a call of a literal); "func name(" a declaration.
				return true
			}
		}
		return false
	}
	return false
}

// preferredFor returns the preferred imports for a fragment, unless it
// imports packages itself (a second import block would be an error only
// when the fragment's own comes first).
func preferredFor(code string) string {
	if strings.HasPrefix(strings.TrimSpace(code), "import") {
		return ""
	}
	return preferred
}

// lineDirective points the compiler's positions at the Markdown page.
func lineDirective(b block) string {
	return "//line " + b.page + ":" + strconv.Itoa(b.line) + "\n"
}

// safeName turns a page's name into a directory name.
func safeName(page string) string {
	return strings.NewReplacer("-", "_", ".", "_").Replace(strings.TrimSuffix(page, ".md"))
}

// unlinked renames a whole file's package main, so that the one go build
// of all blocks compiles it without linking a binary (a link per program
// cost the check most of its time); func main stays an ordinary function.
func unlinked(code string) string {
	loc := mainClause.FindStringIndex(code)
	if loc == nil {
		return code
	}
	return code[:loc[0]] + "package main_" + code[loc[1]:]
}

// downloadModules puts every module this module requires in the module
// cache, where imports.Process looks for the packages a fragment names
// without importing them (asynq, River): on a machine whose cache lacks
// one, its fragments would not compile, and only until a build fetched it.
func downloadModules(t *testing.T) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download (the modules the pages' Go blocks use): %v\n%s", err, out)
	}
}

// mainClause matches the package clause of a program.
var mainClause = regexp.MustCompile(`(?m)^package main[ \t]*$`)

// generate lays the Go blocks out as packages under root.
func generate(t *testing.T, root string, blocks []block) []*genPkg {
	t.Helper()
	var pkgs []*genPkg
	frags := map[string]*genPkg{}
	stmts := map[string]*strings.Builder{}
	var order []string
	for i, b := range blocks {
		if isWhole(b.code) {
			p := &genPkg{dir: filepath.Join(root, fmt.Sprintf("w%03d_%s", i, safeName(b.page))), whole: true,
				files: map[string]string{"main.go": lineDirective(b) + unlinked(b.code)}}
			pkgs = append(pkgs, p)
			continue
		}
		kind := peerKind(b.code)
		key := b.page + "|" + kind
		p := frags[key]
		if p == nil {
			name := "f_" + safeName(b.page)
			if kind != "" {
				name += "_" + kind
			}
			p = &genPkg{dir: filepath.Join(root, name), files: map[string]string{"scope.go": "package p\n\n" + scopes[kind]}}
			frags[key] = p
			stmts[key] = &strings.Builder{}
			order = append(order, key)
		}
		if isDecl(b.code) {
			p.files[fmt.Sprintf("d%03d.go", i)] = "package p\n\n" + preferredFor(b.code) + lineDirective(b) + b.code
		} else {
			s := stmts[key]
			s.WriteString(lineDirective(b))
			s.WriteString(b.code)
			s.WriteString("\n")
		}
	}
	for _, key := range order {
		p := frags[key]
		if s := stmts[key]; s.Len() > 0 {
			p.files["stmts.go"] = "package p\n\n" + preferredFor(s.String()) + "func _() {\n" + s.String() + "}\n"
		}
		pkgs = append(pkgs, p)
	}
	for _, p := range pkgs {
		if err := os.MkdirAll(p.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, src := range p.files {
			file := filepath.Join(p.dir, name)
			out := []byte(src)
			if !p.whole && name != "scope.go" {
				// Add the imports a fragment needs; on a parse error keep
				// the source, so the compiler reports it at the page's line.
				if fixed, err := imports.Process(file, out, &imports.Options{Comments: true, TabIndent: true, TabWidth: 8}); err == nil {
					out = fixed
				}
			}
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return pkgs
}

// forgiven are the compiler's complaints that a fragment may earn by being
// a fragment: a variable shown but not used further, or declared again by
// a later fragment of the same page.
var forgiven = regexp.MustCompile(`declared and not used|no new variables on left side of :=|imported and not used`)

// compilerLine matches an error the compiler reports at a page's line.
var compilerLine = regexp.MustCompile(`^\s*(\S+\.md):(\d+)(:\d+)?: (.*)$`)

// checkGo compiles the Go blocks: one go build of every generated package.
func checkGo(t *testing.T, blocks []block) {
	if len(blocks) == 0 {
		t.Skip("no Go blocks")
	}
	// A fixed directory, so that unchanged pages generate the same packages
	// at the same paths and the build cache serves them on the next run.
	root := "_gen"
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("DOCS_KEEP_GEN") == "" { // set it to look at the generated packages
		t.Cleanup(func() { os.RemoveAll(root) })
	} else {
		t.Logf("the generated packages stay in %s", root)
	}
	start := time.Now()
	downloadModules(t)
	pkgs := generate(t, root, blocks)
	generated := time.Since(start)
	args := []string{"build", "-gcflags=-e"}
	whole := map[string]bool{}
	for _, p := range pkgs {
		args = append(args, "./"+filepath.ToSlash(p.dir))
		if p.whole {
			whole[filepath.Base(p.dir)] = true
		}
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, _ := cmd.CombinedOutput()
	t.Logf("%d Go blocks as %d packages: generated (imports added) in %v, built in %v", len(blocks), len(pkgs), generated.Round(time.Millisecond), (time.Since(start) - generated).Round(time.Millisecond))
	problems := map[string][]string{}
	var current string // the package whose errors follow
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\n")
		if pkg, ok := strings.CutPrefix(line, "# "); ok {
			current = filepath.Base(pkg)
			continue
		}
		m := compilerLine.FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "go: ") {
				problems["(build)"] = append(problems["(build)"], line)
			}
			continue
		}
		if !whole[current] && forgiven.MatchString(m[4]) {
			continue
		}
		problems[m[1]] = append(problems[m[1]], m[1]+":"+m[2]+": "+m[4])
	}
	keys := make([]string, 0, len(problems))
	for k := range problems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Errorf("Go blocks of %s do not compile:\n%s", k, strings.Join(problems[k], "\n"))
	}
}
