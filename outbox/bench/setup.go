package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/internal/pgtest"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
	"github.com/hopperq/hopper/redisstore"
)

// Job is the job every measurement enqueues.
type Job struct {
	Order int64 `msgpack:"o"`
}

func (Job) Kind() string { return "bench_job" }

// benchEnv is the servers and the clients on them.
type benchEnv struct {
	pool    *pgxpool.Pool
	rdb     *redis.Client
	cluster *pgtest.Cluster
	redis   *exec.Cmd
	pgURL   string
	durable bool
	seq     int
}

func setup(ctx context.Context, c config) (*benchEnv, error) {
	e := &benchEnv{pgURL: c.pgURL, durable: !c.fast}
	if e.pgURL == "" {
		cl, err := pgtest.Start(!c.fast)
		if err != nil {
			return nil, err
		}
		e.cluster, e.pgURL = cl, cl.URL
	}
	cfg, err := pgxpool.ParseConfig(e.pgURL)
	if err != nil {
		e.close()
		return nil, err
	}
	cfg.MaxConns = 64
	if e.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		e.close()
		return nil, err
	}
	addr := c.redisAddr
	if addr == "" {
		if addr, err = e.startRedis(); err != nil {
			e.close()
			return nil, err
		}
	}
	e.rdb = redis.NewClient(&redis.Options{Addr: addr, PoolSize: 64})
	if err := e.rdb.Ping(ctx).Err(); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

// startRedis runs a redis-server on a free port, killed with this process.
func (e *benchEnv) startRedis() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "hopper-bench-redis-")
	if err != nil {
		return "", err
	}
	e.redis = exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	e.redis.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := e.redis.Start(); err != nil {
		return "", fmt.Errorf("start redis-server: %w", err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if rdb.Ping(context.Background()).Err() == nil {
			return addr, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("redis-server on %s does not answer", addr)
		}
		time.Sleep(10 * time.Millisecond) // start-up poll
	}
}

func (e *benchEnv) close() {
	if e.pool != nil {
		e.pool.Close()
	}
	if e.rdb != nil {
		e.rdb.Close()
	}
	if e.redis != nil && e.redis.Process != nil {
		_ = e.redis.Process.Kill()
		_ = e.redis.Wait()
	}
	if e.cluster != nil {
		_ = e.cluster.Stop()
	}
}

func (e *benchEnv) describe() string {
	var v string
	_ = e.pool.QueryRow(context.Background(), "SHOW server_version").Scan(&v)
	var fsync, sync string
	_ = e.pool.QueryRow(context.Background(), "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &sync)
	info, _ := e.rdb.InfoMap(context.Background(), "server").Result()
	return fmt.Sprintf("PostgreSQL %s (fsync=%s, synchronous_commit=%s), Redis %s, %s/%s, %d CPUs, %s",
		v, fsync, sync, info["Server"]["redis_version"], runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
}

// fresh makes a new outbox table and orders table, and a store with a key
// prefix of its own, so that each measurement starts empty.
func (e *benchEnv) fresh(ctx context.Context) (*outbox.Outbox, hopper.Store, string, error) {
	e.seq++
	table := fmt.Sprintf("bench_outbox_%d_%d", os.Getpid(), e.seq)
	if err := outbox.Migrate(ctx, pgxoutbox.Tx(e.pool), table); err != nil {
		return nil, nil, "", err
	}
	orders := table + "_orders"
	if _, err := e.pool.Exec(ctx, "CREATE TABLE "+orders+" (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, total int NOT NULL)"); err != nil {
		return nil, nil, "", err
	}
	st := redisstore.New(e.rdb, &redisstore.Config{Prefix: fmt.Sprintf("bench%d-%d", os.Getpid(), e.seq)})
	ob := outbox.New(hopper.NewClient(st, nil), &outbox.Config{Table: table})
	return ob, st, orders, nil
}
