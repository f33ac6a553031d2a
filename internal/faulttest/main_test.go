package faulttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// workerBin is the path of the testworker binary built by TestMain.
var workerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "faulttest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workerBin, err = buildWorker(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	// No redistest.Main: every scenario harms its server, so each starts
	// its own.
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// buildWorker compiles ./testworker into dir, with -race when this test
// binary has it.
func buildWorker(dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "testworker")
	args := []string{"build", "-o", out}
	if raceBuild {
		args = append(args, "-race")
	}
	args = append(args, "github.com/hopperq/hopper/internal/faulttest/testworker")
	cmd := exec.Command(goBin, args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("faulttest: build testworker: %v\n%s", err, b)
	}
	return out, nil
}
