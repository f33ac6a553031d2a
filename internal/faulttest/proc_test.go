package faulttest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
)

// workerOpts are the flags of one testworker process.
type workerOpts struct {
	addr        string // host:port, or seed nodes with cluster
	cluster     bool
	prefix      string
	queues      string        // comma-separated; "default" when empty
	concurrency int           // 10 when zero
	lease       time.Duration // 1 s when zero
	sleep       time.Duration
	failFirst   bool
	skew        time.Duration
	every       time.Duration // run a periodic job on everyQueue
	everyQueue  string
	queueCount  int    // serve queueCount queues named by queueFormat instead of queues
	queueFormat string // fmt pattern, "q%04d" when empty
	// defaults runs the worker with the library's defaults for the idle
	// wait, the scheduler's MaxSleep and the heartbeat interval (5 s each),
	// as in production, instead of the testworker's quicker 200 ms
	// MaxSleep and 1 s heartbeat.
	defaults bool
	idleWait time.Duration // WorkerConfig.IdleWait; the library's default when zero
	replicas int           // redisstore Options.Replicas
	cmds     bool          // count the commands the worker sends (workerProc.cmds)
}

// workerProc is one running testworker.
type workerProc struct {
	id     string
	ledger string
	cmds   string // the command counts file, with workerOpts.cmds
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
}

// startWorker starts a testworker writing its ledger into dir, and stops it
// (SIGKILL if still running) in t.Cleanup.
func startWorker(t *testing.T, dir, id string, o workerOpts) *workerProc {
	t.Helper()
	if o.queues == "" {
		o.queues = "default"
	}
	if o.concurrency == 0 {
		o.concurrency = 10
	}
	if o.lease == 0 {
		o.lease = time.Second
	}
	w := &workerProc{id: id, ledger: filepath.Join(dir, id+".jsonl"), stderr: new(lockedBuffer), done: make(chan struct{})}
	args := []string{
		"-addr", o.addr, "-prefix", o.prefix, "-queues", o.queues, "-id", id, "-ledger", w.ledger,
		"-concurrency", strconv.Itoa(o.concurrency), "-lease", o.lease.String(),
		"-sleep", o.sleep.String(), "-skew", o.skew.String(), "-every", o.every.String(),
	}
	if o.everyQueue != "" {
		args = append(args, "-every-queue", o.everyQueue)
	}
	if o.cluster {
		args = append(args, "-cluster")
	}
	if o.queueCount > 0 {
		args = append(args, "-queue-count", strconv.Itoa(o.queueCount))
		if o.queueFormat != "" {
			args = append(args, "-queue-format", o.queueFormat)
		}
	}
	if o.defaults {
		args = append(args, "-max-sleep", "0", "-heartbeat", "0")
	}
	if o.idleWait > 0 {
		args = append(args, "-idle-wait", o.idleWait.String())
	}
	if o.replicas > 0 {
		args = append(args, "-replicas", strconv.Itoa(o.replicas))
	}
	if os.Getenv("FAULTTEST_CPUPROFILE") != "" {
		// Diagnosis: a CPU profile of each worker next to its ledger
		// (keep the directory with FAULTTEST_KEEP).
		args = append(args, "-cpuprofile", filepath.Join(dir, id+".cpu.pprof"))
	}
	if o.cmds {
		w.cmds = filepath.Join(dir, id+".cmds.json")
		args = append(args, "-cmds", w.cmds)
	}
	if o.failFirst {
		args = append(args, "-fail-first")
	}
	w.cmd = exec.Command(workerBin, args...)
	w.cmd.Stderr = w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = w.cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		w.kill(t)
		out := w.stderr.String()
		if os.Getenv("FAULTTEST_KEEP") != "" {
			// Diagnosis: the worker's log next to its ledger.
			_ = os.WriteFile(filepath.Join(dir, id+".stderr"), []byte(out), 0o644)
		}
		for _, bad := range []string{"WARNING: DATA RACE", "panic:"} {
			if strings.Contains(out, bad) {
				t.Errorf("worker %s wrote %q:\n%s", id, bad, out)
			}
		}
	})
	return w
}

func (w *workerProc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := w.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to worker %s: %v", sig, w.id, err)
	}
}

// kill ends the worker with SIGKILL (a crash) and waits for it.
func (w *workerProc) kill(t *testing.T) {
	t.Helper()
	select {
	case <-w.done:
		return
	default:
	}
	_ = w.cmd.Process.Signal(syscall.SIGCONT) // a stopped process dies on SIGKILL too, but be plain
	_ = w.cmd.Process.Kill()
	<-w.done
}

// stop asks the worker to shut down gracefully (SIGTERM) and waits up to
// 20 s for it.
func (w *workerProc) stop(t *testing.T) {
	t.Helper()
	select {
	case <-w.done:
		return
	default:
	}
	w.signal(t, syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(20 * time.Second):
		t.Errorf("worker %s ignored SIGTERM for 20 s; stderr:\n%s", w.id, w.stderr.String())
		w.kill(t)
	}
	if !w.cmd.ProcessState.Success() && !failedBySignal(w.cmd.ProcessState) {
		t.Errorf("worker %s exited with %v; stderr:\n%s", w.id, w.cmd.ProcessState, w.stderr.String())
	}
}

func failedBySignal(ps interface{ Sys() any }) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// waitUp waits until the worker wrote its "up" event.
func (w *workerProc) waitUp(t *testing.T) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, func() error {
		select {
		case <-w.done:
			t.Fatalf("worker %s exited at start: %v\n%s", w.id, w.cmd.ProcessState, w.stderr.String())
		default:
		}
		evs, err := readLedger(w.ledger)
		if err != nil || len(evs) == 0 {
			return fmt.Errorf("worker %s not up yet (%v)", w.id, err)
		}
		return nil
	})
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
