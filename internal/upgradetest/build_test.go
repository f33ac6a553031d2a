package upgradetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// inCI reports whether the tests run under CI (CI=true), where a missing
// tool fails the test instead of skipping it.
func inCI() bool {
	b, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && b
}

// require returns the path of the program name, or ends the test: a skip
// on a developer machine, a failure under CI.
func require(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := fmt.Sprintf("upgradetest: %s not found on PATH; the rolling-upgrade test needs git, go and redis-server", name)
	if inCI() {
		t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
	}
	t.Skip(msg)
	return ""
}

// builds are the programs of one run: the old and new prog, and the new
// hopper command.
type builds struct {
	oldProg, newProg, hopper string
	oldFrom                  string // where the old sources came from
	took                     time.Duration
}

// build builds the programs side by side. The old tree is oldCommit's
// library with this checkout's prog and evidence copied in at the same
// paths, built with its own go.mod. Builds are not race builds, whatever
// the test binary is.
func build(t *testing.T, root string) builds {
	t.Helper()
	goBin := require(t, "go")
	start := time.Now()
	dir := t.TempDir()
	oldTree := filepath.Join(dir, "old")
	fs, from := oldSources(t, root)
	writeTree(t, oldTree, fs)
	for _, pkg := range []string{"prog", "evidence"} {
		copyDir(t, filepath.Join(root, "internal", "upgradetest", pkg), filepath.Join(oldTree, "internal", "upgradetest", pkg))
	}
	b := builds{
		oldProg: filepath.Join(dir, "prog-old"),
		newProg: filepath.Join(dir, "prog-new"),
		hopper:  filepath.Join(dir, "hopper"),
		oldFrom: from,
	}
	jobs := []struct{ tree, out, pkg string }{
		{oldTree, b.oldProg, "./internal/upgradetest/prog"},
		{root, b.newProg, "./internal/upgradetest/prog"},
		{root, b.hopper, "./cmd/hopper"},
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			// -trimpath keeps the temporary directory out of the build
			// cache's keys, so that a second run reuses the old tree's
			// packages (seconds instead of a minute); -s -w skip the
			// debug information nobody reads here.
			cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", j.out, j.pkg)
			cmd.Dir = j.tree
			// -mod=mod lets the old tree's go.sum gain what it lacks;
			// GOFLAGS is set whole so that no -race reaches these builds.
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build %s in %s: %v\n%s", j.pkg, j.tree, err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b.took = time.Since(start)
	return b
}

// copyDir copies the regular files of src (not its subdirectories, not
// tests) to dst.
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".go" || isTest(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func isTest(name string) bool { return strings.HasSuffix(name, "_test.go") }
