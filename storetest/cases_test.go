package storetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCaseLists checks the case lists: every case is either a behaviour or
// a set of them, names are usable and unique where they meet, and both
// groups have cases.
func TestCaseLists(t *testing.T) {
	engine, admin := engineGroups(), adminGroups()
	if len(engine) == 0 || len(admin) == 0 {
		t.Fatalf("%d Engine groups, %d Admin groups; want some of each", len(engine), len(admin))
	}
	nEngine := checkGroups(t, "Engine", engine)
	nAdmin := checkGroups(t, "Admin", admin)
	nEvents := checkCases(t, "Events", eventsCases())
	nWatch := checkCases(t, "WatchJob", watchCases())
	nWorkflows := checkCases(t, "Workflows", workflowCases())
	t.Logf("%d Engine cases, %d Admin cases, %d Events cases, %d WatchJob cases, %d Workflows cases", nEngine, nAdmin, nEvents, nWatch, nWorkflows)
}

// checkGroups checks the groups of one part and returns how many cases
// (leaves) they hold.
func checkGroups[F any](t *testing.T, part string, groups []group[F]) int {
	t.Helper()
	seen := map[string]bool{}
	n := 0
	for _, g := range groups {
		checkName(t, part, g.name, seen)
		if len(g.cases) == 0 {
			t.Errorf("%s/%s has no cases", part, g.name)
		}
		n += checkCases(t, part+"/"+g.name, g.cases)
	}
	return n
}

func checkCases[F any](t *testing.T, path string, cases []testCase[F]) int {
	t.Helper()
	seen := map[string]bool{}
	n := 0
	for _, c := range cases {
		checkName(t, path, c.name, seen)
		hasFn := !reflect.ValueOf(c.fn).IsNil()
		switch {
		case hasFn && len(c.sub) > 0:
			t.Errorf("%s/%s has both a function and sub cases", path, c.name)
		case hasFn:
			n++
		case len(c.sub) > 0:
			n += checkCases(t, path+"/"+c.name, c.sub)
		default:
			t.Errorf("%s/%s has neither a function nor sub cases", path, c.name)
		}
	}
	return n
}

// checkName fails unless name is usable in go test -run (no spaces, no
// slashes, not empty) and not yet in seen.
func checkName(t *testing.T, path, name string, seen map[string]bool) {
	t.Helper()
	if name == "" || strings.ContainsAny(name, " /\t\n") {
		t.Errorf("%s: case name %q, want a non-empty name without spaces or slashes", path, name)
	}
	if seen[name] {
		t.Errorf("%s: two cases named %q", path, name)
	}
	seen[name] = true
}

// TestEngineCasesUseStoreOnly checks that no Engine case can reach
// store.Admin. An Engine case has the signature
// func(t *testing.T, s store.Store), and an Admin case gets the store.Admin
// as an argument; the only way around that is a type assertion, which
// only Run may make.
func TestEngineCasesUseStoreOnly(t *testing.T) {
	if ft := reflect.TypeFor[engineFunc](); ft.NumIn() != 2 || ft.In(1).String() != "store.Store" {
		t.Fatalf("Engine cases have type %v, want func(*testing.T, store.Store)", ft)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n.(type) {
				case *ast.TypeAssertExpr, *ast.TypeSwitchStmt:
					if fd.Name.Name != "Run" {
						t.Errorf("%s: %s makes a type assertion; only Run may (a case could reach store.Admin through one)", fset.Position(n.Pos()), fd.Name.Name)
					}
				}
				return true
			})
		}
	}
}
