package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// binDirs are where PostgreSQL's programs are looked for after PATH.
var binDirs = []string{"/usr/local/bin", "/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin"}

// ErrNotFound reports that initdb or postgres is not installed, or that
// there is no user to run them as.
var ErrNotFound = errors.New("pgtest: PostgreSQL not found (install it, e.g. apt-get install postgresql, or set HOPPER_TEST_POSTGRES to a URL)")

// findBin returns the directory holding both initdb and postgres.
func findBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	for _, pattern := range binDirs {
		dirs, _ := filepath.Glob(pattern)
		// Newest version first: /usr/lib/postgresql/16/bin before 15.
		slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
		for _, dir := range dirs {
			if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres")) {
				return dir, nil
			}
		}
	}
	return "", ErrNotFound
}

// versionOf reads the version number of a /usr/lib/postgresql/N/bin path.
func versionOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// runAs is who the cluster runs as: nil for the current user, or the
// "postgres" user's credentials when running as root.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("%w: running as root, which PostgreSQL refuses, and there is no postgres user to run it as (%v)", ErrNotFound, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
