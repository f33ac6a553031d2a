package upgradetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// oldCommit is the commit the old programs are built from: main before
// the layout version (pre-v0.1.0, stored layout 0).
const oldCommit = "cbcdc6d53f4236e567699415fe04412baeb0f7f8"

// oldPaths are the pathspecs of the old tree: the library sources the
// program needs (the root package, store, redisstore with its Lua, and
// the internal packages they import), without tests, test data and
// documents.
var oldPaths = []string{
	"go.mod", "go.sum", ":(glob)*.go",
	"store", "redisstore",
	"internal/engine", "internal/fieldcopy", "internal/msgpackguard",
	"internal/mstime", "internal/sched", "internal/wire",
	":(exclude,glob)**/*_test.go", ":(exclude,glob)**/testdata/**", ":(exclude,glob)**/*.md",
}

// tarballPath is the old tree for checkouts without oldCommit.
var tarballPath = filepath.Join("testdata", oldCommit[:7]+"-src.tar.gz")

var update = flag.Bool("update", false, "rewrite "+tarballPath+" from git archive")

// moduleRoot is the root of this checkout (the module of the test).
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("upgradetest: no go.mod at the module root %s: %v", root, err)
	}
	return root
}

// gitArchive returns git archive's tar of oldCommit's oldPaths, or
// ok false when git or the commit is missing (a shallow or history-less
// checkout).
func gitArchive(t testing.TB, root string) (tarball []byte, ok bool) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	if err := exec.Command(git, "-C", root, "cat-file", "-e", oldCommit+"^{commit}").Run(); err != nil {
		return nil, false
	}
	cmd := exec.Command(git, append([]string{"-C", root, "archive", "--format=tar", oldCommit, "--"}, oldPaths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("upgradetest: git archive %s: %v\n%s", oldCommit, err, stderr.String())
	}
	return out, true
}

// files reads a tar into path → content (regular files only).
func files(t testing.TB, r io.Reader) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return m
		}
		if err != nil {
			t.Fatalf("upgradetest: read tar: %v", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("upgradetest: read %s: %v", h.Name, err)
		}
		m[h.Name] = b
	}
}

// tarballFiles reads the stored tarball.
func tarballFiles(t testing.TB) map[string][]byte {
	t.Helper()
	f, err := os.Open(tarballPath)
	if err != nil {
		t.Fatalf("upgradetest: %v (regenerate it with -update where the history is present)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("upgradetest: %s: %v", tarballPath, err)
	}
	return files(t, zr)
}

// oldSources returns the files of the old tree: from git when the
// history holds oldCommit, else from the tarball. Without git, CI fails.
func oldSources(t testing.TB, root string) (map[string][]byte, string) {
	t.Helper()
	require(t, "git")
	if b, ok := gitArchive(t, root); ok {
		return files(t, bytes.NewReader(b)), "git archive " + oldCommit[:7]
	}
	return tarballFiles(t), tarballPath + " (the checkout lacks " + oldCommit[:7] + ")"
}

// writeTree writes fs under dir.
func writeTree(t testing.TB, dir string, fs map[string][]byte) {
	t.Helper()
	for name, b := range fs {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOldSourcesTarball checks that the stored tarball holds exactly
// the files git archive gives for oldCommit, so that a checkout without
// the history builds the same old programs. With -update it rewrites
// the tarball first.
func TestOldSourcesTarball(t *testing.T) {
	root := moduleRoot(t)
	require(t, "git")
	b, ok := gitArchive(t, root)
	if !ok {
		// A shallow checkout is the very case the tarball is for; the
		// checkouts with history keep it honest.
		t.Skip("upgradetest: this checkout lacks commit " + oldCommit[:7] + " (shallow or without history): nothing to compare the tarball with")
	}
	if *update {
		writeGzip(t, tarballPath, b)
	}
	want := files(t, bytes.NewReader(b))
	got := tarballFiles(t)
	var diffs []string
	for _, name := range sortedKeys(want, got) {
		w, inWant := want[name]
		g, inGot := got[name]
		switch {
		case !inGot:
			diffs = append(diffs, "missing from the tarball: "+name)
		case !inWant:
			diffs = append(diffs, "only in the tarball: "+name)
		case !bytes.Equal(w, g):
			diffs = append(diffs, "differs: "+name)
		}
	}
	if len(diffs) > 0 {
		t.Fatalf("%s differs from git archive %s (go test -run TestOldSourcesTarball -update rewrites it):\n%s",
			tarballPath, oldCommit[:7], strings.Join(diffs, "\n"))
	}
	t.Logf("%s: %d files, equal to git archive %s", tarballPath, len(got), oldCommit[:7])
}

func writeGzip(t testing.TB, path string, b []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", path, buf.Len())
}

func sortedKeys(ms ...map[string][]byte) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
