package pgxoutbox_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
	"github.com/hopperq/hopper/redisstore"
)

// The environment of a relay child process: the test binary run again,
// as a relay until it is killed.
const (
	envChild       = "HOPPER_OUTBOX_RELAY_CHILD" // the PostgreSQL URL
	envChildRedis  = "HOPPER_OUTBOX_RELAY_REDIS"
	envChildPrefix = "HOPPER_OUTBOX_RELAY_PREFIX"
	envChildBatch  = "HOPPER_OUTBOX_RELAY_BATCH"
)

// runChildRelay is the main of a relay child: it relays until killed.
func runChildRelay() int {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv(envChild))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv(envChildRedis)})
	st := redisstore.New(rdb, &redisstore.Config{Prefix: os.Getenv(envChildPrefix), Logger: testutil.Logger()})
	batch, _ := strconv.Atoi(os.Getenv(envChildBatch))
	relay := pgxoutbox.NewRelay(pool, outbox.New(hopper.NewClient(st, nil), nil), &pgxoutbox.RelayConfig{
		BatchSize: batch, Logger: testutil.Logger(),
	})
	if err := relay.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startChild starts a relay child for e, killed if this process dies.
func startChild(e *env, batch int) (*exec.Cmd, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envChild+"="+e.url, envChildRedis+"="+e.redis.Addr, envChildPrefix+"="+e.prefix,
		envChildBatch+"="+strconv.Itoa(batch))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd, cmd.Start()
}
