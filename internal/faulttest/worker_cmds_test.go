package faulttest

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/proctest"
)

// cmdCounter is a go-redis hook that counts the commands this process
// sends to Redis, each command of a pipeline on its own, by name; a script
// call is named after its script ("script:claim"), known from the function
// name (FCALL) or from the source the store loads at start or sends with
// EVAL. The pub/sub connection's SUBSCRIBE and health-check PING do not
// pass through hooks and are not counted. (workerOpts.Cmds)
type cmdCounter struct {
	c *proctest.Child

	mu      sync.Mutex
	byName  map[string]int64
	scripts map[string]string // sha1 -> script name
}

func newCmdCounter(c *proctest.Child) *cmdCounter {
	return &cmdCounter{c: c, byName: map[string]int64{}, scripts: map[string]string{}}
}

func (c *cmdCounter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (c *cmdCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.count(cmd)
		return next(ctx, cmd)
	}
}

func (c *cmdCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			c.count(cmd)
		}
		return next(ctx, cmds)
	}
}

// scriptName finds the script's file name in its source: the line
// "-- script <name>" the store writes ahead of an EVAL's code
// (redisstore/functions.go), name being the file and its variant's letters.
var scriptName = regexp.MustCompile(`(?m)^-- script ([a-z_]+)`)

func (c *cmdCounter) count(cmd redis.Cmder) {
	args := cmd.Args()
	name := strings.ToLower(cmd.Name())
	c.mu.Lock()
	defer c.mu.Unlock()
	learn := func(src string) string {
		sum := sha1.Sum([]byte(src))
		sha := hex.EncodeToString(sum[:])
		if _, ok := c.scripts[sha]; !ok {
			n := "?"
			if m := scriptName.FindStringSubmatch(src); m != nil {
				n = m[1]
			}
			c.scripts[sha] = n
		}
		return c.scripts[sha]
	}
	switch name {
	case "fcall", "fcall_ro":
		// The function is "hopper_<hash>_<script>" (redisstore/functions.go).
		if len(args) > 1 {
			if parts := strings.SplitN(fmt.Sprint(args[1]), "_", 3); len(parts) == 3 {
				name = "script:" + parts[2]
			}
		}
	case "evalsha", "evalsha_ro":
		if len(args) > 1 {
			if n, ok := c.scripts[fmt.Sprint(args[1])]; ok {
				name = "script:" + n
			}
		}
	case "eval", "eval_ro":
		if len(args) > 1 {
			name = "script:" + learn(fmt.Sprint(args[1]))
		}
	case "function":
		if len(args) > 1 && strings.EqualFold(fmt.Sprint(args[1]), "load") {
			name = "function load"
		}
	case "script":
		if len(args) > 2 && strings.EqualFold(fmt.Sprint(args[1]), "load") {
			learn(fmt.Sprint(args[2]))
			name = "script load"
		}
	}
	c.byName[name]++
}

// run reports the counts every 100 ms until ctx is done, and once more
// then.
func (c *cmdCounter) run(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			c.report()
			return
		case <-t.C:
			c.report()
		}
	}
}

// report emits the cumulative counts by name as a "cmds" event.
func (c *cmdCounter) report() {
	c.mu.Lock()
	counts := maps.Clone(c.byName)
	c.mu.Unlock()
	c.c.Emit(proctest.Event{Ev: "cmds", Counts: counts})
}
