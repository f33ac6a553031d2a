package releasetest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// repoRoot is the checkout: two levels up from this package.
const repoRoot = "../.."

// version reads hopper.Version from the checkout's version.go.
func version(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, "version.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const Version = "(v[^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("version.go declares no const Version")
	}
	return string(m[1])
}

// publish writes one module version into the file proxy at dir, as the
// GOPROXY protocol lays it out: @v/list, .info, .mod and .zip.
func publish(t *testing.T, proxy, path, version, dir string) {
	t.Helper()
	esc, err := module.EscapePath(path)
	if err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(proxy, esc, "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(vdir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.CreateFromDir(f, module.Version{Path: path, Version: version}, dir); err != nil {
		t.Fatalf("zip %s@%s from %s: %v", path, version, dir, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string][]byte{version + ".mod": mod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// copyModFile copies the go.mod and go.sum of the module in dir to a
// temporary directory and returns the go.mod's path: a go command given it
// with -modfile writes the sums it adds there, not into the repository.
func copyModFile(t *testing.T, dir string) string {
	t.Helper()
	tmp := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(tmp, "go.mod")
}

// goCmd runs the go command in dir with env, failing the test on error.
func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return string(out)
}

// TestScratchModuleGetsLibraryAndOutboxByVersion is the check: a module
// outside the repository go-gets hopper and the outbox at hopper.Version
// and builds a program using both, with no replace directive anywhere in
// its go.mod. Before v0.1.0 it failed: the outbox required hopper v0.0.0,
// a version nothing can serve.
func TestScratchModuleGetsLibraryAndOutboxByVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module from a local proxy")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is not on PATH")
	}
	v := version(t)
	proxy := t.TempDir()
	publish(t, proxy, "github.com/hopperq/hopper", v, repoRoot)
	publish(t, proxy, "github.com/hopperq/hopper/outbox", v, filepath.Join(repoRoot, "outbox"))

	// The other modules come from this machine's module cache, served as a
	// proxy too, so the test needs no network; a module cache of its own
	// keeps the zips made here out of the user's.
	realCache := strings.TrimSpace(goCmd(t, ".", nil, "env", "GOMODCACHE"))
	// That cache must hold every module of the library's and the outbox's
	// module graphs (the zips they build with, the .info files go list -m
	// all reads): on a fresh machine it may hold only the go.mod files of
	// some, until a module's own tests download them (CI runs this module
	// before the outbox's). go mod download all fetches them the way this
	// machine's go command fetches anything.
	for _, dir := range []string{repoRoot, filepath.Join(repoRoot, "outbox")} {
		goCmd(t, dir, nil, "mod", "download", "-modfile="+copyModFile(t, dir), "all")
	}
	modcache := t.TempDir()
	env := []string{
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(realCache, "cache", "download")),
		"GOMODCACHE=" + modcache,
		"GOSUMDB=off",
		"GOFLAGS=-mod=mod -buildvcs=false",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	}
	t.Cleanup(func() {
		// The module cache is read-only; the go command removes it.
		cmd := exec.Command("go", "clean", "-modcache")
		cmd.Env = append(os.Environ(), "GOMODCACHE="+modcache)
		_ = cmd.Run()
	})

	app := t.TempDir()
	goCmd(t, app, env, "mod", "init", "example.com/app")
	err := os.WriteFile(filepath.Join(app, "main.go"), []byte(`package main

import (
	"fmt"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
	"github.com/hopperq/hopper/redisstore"
)

func main() {
	client := hopper.NewClient(memstore.New(nil), nil)
	ob := outbox.New(client, nil)
	fmt.Println(hopper.Version, redisstore.LayoutVersion, ob != nil, pgxoutbox.Tx != nil)
}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// The outbox alone first: its own requirement of the library must name
	// a version the proxy serves (a get of both at once would pick the
	// library's version for it and hide a wrong requirement).
	goCmd(t, app, env, "get", "github.com/hopperq/hopper/outbox@"+v)
	goCmd(t, app, env, "get", "github.com/hopperq/hopper@"+v)
	goCmd(t, app, env, "build", "-trimpath", "-o", "app", ".") // -trimpath: the build cache serves the dependencies whatever the module cache's path
	out, err := exec.Command(filepath.Join(app, "app")).CombinedOutput()
	if err != nil {
		t.Fatalf("the program: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), v+" ") {
		t.Errorf("the program printed %q, want hopper.Version %s first", out, v)
	}
	mods := goCmd(t, app, env, "list", "-m", "all")
	for _, want := range []string{"github.com/hopperq/hopper " + v, "github.com/hopperq/hopper/outbox " + v} {
		if !strings.Contains(mods, want+"\n") {
			t.Errorf("go list -m all lacks %q:\n%s", want, mods)
		}
	}
	gomod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gomod), "replace") {
		t.Errorf("the scratch module needed a replace:\n%s", gomod)
	}
	t.Logf("a module outside the repository built against hopper %s and outbox %s from a proxy:\n%s", v, v, gomod)
}
