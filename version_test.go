package hopper_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestVersionIsSemver: the version is a release tag a go get can name.
func TestVersionIsSemver(t *testing.T) {
	if !regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$`).MatchString(hopper.Version) {
		t.Fatalf("hopper.Version = %q, not a release tag vMAJOR.MINOR.PATCH", hopper.Version)
	}
}

// TestChangelogNamesVersion: every release has its section in the
// CHANGELOG, so bumping Version without writing the upgrade notes fails.
func TestChangelogNamesVersion(t *testing.T) {
	src, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\n## "+hopper.Version+" ") {
		t.Fatalf("CHANGELOG.md has no section \"## %s ...\"", hopper.Version)
	}
}

// TestNestedModulesRequireThisVersion: every module of the repository that
// requires the library requires this version of it, so that an importer
// of the outbox gets the library it was released with.
func TestNestedModulesRequireThisVersion(t *testing.T) {
	mods, err := filepath.Glob("*/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/*/go.mod")
	mods = append(mods, more...)
	req := regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/hopperq/hopper(/outbox)?\s+(v\S+)`)
	checked := 0
	for _, m := range mods {
		src, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range req.FindAllStringSubmatch(string(src), -1) {
			checked++
			if r[2] != hopper.Version {
				t.Errorf("%s requires github.com/hopperq/hopper%s %s, want %s", m, r[1], r[2], hopper.Version)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no module requires the library: the check looked in the wrong place")
	}
}
