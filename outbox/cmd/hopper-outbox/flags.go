package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/redisstore"
)

// newFlags returns a flag set that prints errors and usage to w.
func newFlags(name, usageLine string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: %s\n\nflags:\n", usageLine)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, returning errUsage when fs printed an error or help,
// or when positional arguments are left.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
}

// pgFlags choose the PostgreSQL database and the outbox table.
type pgFlags struct {
	url, table string
}

func addPGFlags(fs *flag.FlagSet) *pgFlags {
	f := &pgFlags{}
	def := os.Getenv("HOPPER_POSTGRES_URL")
	if def == "" {
		def = os.Getenv("DATABASE_URL")
	}
	fs.StringVar(&f.url, "postgres", def, "PostgreSQL URL, postgres://user:password@host:port/db (default from $HOPPER_POSTGRES_URL, else $DATABASE_URL)")
	fs.StringVar(&f.table, "table", "", `the outbox table, optionally schema-qualified (default "hopper_outbox")`)
	return f
}

// open connects to PostgreSQL and checks that it answers.
func (f *pgFlags) open(ctx context.Context) (*pgxpool.Pool, error) {
	if f.url == "" {
		return nil, fmt.Errorf("no PostgreSQL URL: set --postgres, $HOPPER_POSTGRES_URL or $DATABASE_URL")
	}
	pool, err := pgxpool.New(ctx, f.url)
	if err != nil {
		return nil, fmt.Errorf("--postgres %s: %w", redact(f.url), err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot reach PostgreSQL at %s: %w", redact(f.url), err)
	}
	return pool, nil
}

// redisFlags choose the Redis store, as the hopper command's do.
type redisFlags struct {
	url, prefix string
	cluster     bool
}

func addRedisFlags(fs *flag.FlagSet) *redisFlags {
	f := &redisFlags{}
	def := os.Getenv("HOPPER_REDIS_URL")
	if def == "" {
		def = "redis://localhost:6379/0"
	}
	fs.StringVar(&f.url, "redis", def, "Redis URL: redis://[user:password@]host:port/db, rediss:// for TLS (default from $HOPPER_REDIS_URL)")
	fs.StringVar(&f.prefix, "redis-prefix", redisstore.DefaultPrefix, "key prefix of the store in Redis (redisstore.Config.Prefix)")
	fs.BoolVar(&f.cluster, "cluster", false, "the Redis URL names a Redis Cluster node (add more nodes with ?addr=host:port)")
	return f
}

// open connects to Redis, checks that it answers and returns the store.
func (f *redisFlags) open(ctx context.Context) (*redisstore.Store, func(), error) {
	var rdb redis.UniversalClient
	if f.cluster {
		o, err := redis.ParseClusterURL(f.url)
		if err != nil {
			return nil, nil, fmt.Errorf("--redis %s: %w", redact(f.url), err)
		}
		rdb = redis.NewClusterClient(o)
	} else {
		o, err := redis.ParseURL(f.url)
		if err != nil {
			return nil, nil, fmt.Errorf("--redis %s: %w", redact(f.url), err)
		}
		rdb = redis.NewClient(o)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("cannot reach Redis at %s: %w", redact(f.url), err)
	}
	return redisstore.New(rdb, &redisstore.Config{Prefix: f.prefix}), func() { rdb.Close() }, nil
}

// redact hides the password of a URL for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
