package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/childproc"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// firstCallAddr names the environment variable that makes
// TestFirstCallChild run: the address of the server it enqueues to.
const firstCallAddr = "HOPPER_TEST_FIRST_CALL_ADDR"

// TestFirstCallBuildsItsOwnScript: a new process whose server already
// holds hopper's libraries (an earlier process loaded them) builds, for
// its first Enqueue, the enqueue script alone, from its own files, not
// every library the start-up check would load on a server without them:
// its first call costs it a few milliseconds, not twenty. On a server
// without them the check builds and loads them all, as before.
func TestFirstCallBuildsItsOwnScript(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	run := func() (built, parsed, files int) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), os.Args[0])
		cmd.Env = append(os.Environ(), firstCallAddr+"="+admin.Options().Addr)
		childproc.DieWithParent(cmd)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		for line := range strings.Lines(string(out)) {
			if _, err := fmt.Sscanf(line, "built %d parsed %d of %d", &built, &parsed, &files); err == nil {
				return built, parsed, files
			}
		}
		t.Fatalf("child printed no counts:\n%s", out)
		return
	}
	onEmpty, _, _ := run()
	if onEmpty < 8 {
		t.Errorf("on a server without the libraries the first process built %d scripts, want the 8 the check loads", onEmpty)
	}
	built, parsed, files := run()
	t.Logf("first process: %d scripts built; second: %d built, %d of %d files parsed", onEmpty, built, parsed, files)
	if built != 1 {
		t.Errorf("on a server holding the libraries a new process built %d scripts for one Enqueue, want 1 (enqueue's)", built)
	}
	if parsed*3 > files {
		t.Errorf("on a server holding the libraries a new process parsed %d of lua/'s %d files for one Enqueue, want a third or fewer", parsed, files)
	}
	if n, err := admin.LLen(t.Context(), "{"+t.Name()+":q}:r").Result(); err != nil || n != 2 {
		t.Errorf("ready jobs after both processes' Enqueue: %d, %v; want 2", n, err)
	}
}

// firstCallChild is TestFirstCallBuildsItsOwnScript's child process
// (TestMain runs it instead of the tests when firstCallAddr is set): it
// enqueues one job on the server at addr and prints what the process
// built, then returns its exit code.
func firstCallChild(addr string) int {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	s := redisstore.New(rdb, &redisstore.Config{Prefix: "TestFirstCallBuildsItsOwnScript"})
	if _, err := s.Enqueue(context.Background(), []*store.NewJob{job("q", fmt.Sprint("first-", os.Getpid()))}); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("built %d parsed %d of %d\n", redisstore.BuiltScripts(), redisstore.ParsedLuaFiles(), redisstore.LuaFiles())
	return 0
}
