package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/hopperq/hopper/internal/redisurl"
	"github.com/hopperq/hopper/internal/urlredact"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/redisstore"
)

// flagSet is the flags of one command. It parses without printing: run
// prints the usage, to stdout for help and to stderr after the line of a
// usage error.
type flagSet struct {
	*flag.FlagSet
	usageLine string
}

func newFlags(name, usageLine string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, usageLine: usageLine}
}

// usage writes the command's usage and flags to w.
func (fs *flagSet) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\nflags:\n", fs.usageLine)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parse parses args. It returns a *helpError when they ask for help (-h,
// --help), and a *usageError for a flag that is not defined, a value
// that does not parse, or an argument left after the flags.
func (fs *flagSet) parse(args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return &helpError{fs: fs}
	case err != nil:
		return fs.bad("%v", err)
	case fs.NArg() > 0:
		return fs.bad("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// bad returns the usage error of fs's command: what was wrong with its
// flags or arguments.
func (fs *flagSet) bad(format string, args ...any) error {
	return &usageError{fs: fs, msg: fmt.Sprintf(format, args...)}
}

// configText is the text of an error wrapping hopper.ErrInvalidConfig
// without its "hopper: invalid config: ", for a usage error that names
// the flag instead.
func configText(err error) string {
	return strings.TrimPrefix(err.Error(), hopper.ErrInvalidConfig.Error()+": ")
}

// checkTable refuses a --table that is not an outbox table's name.
func checkTable(fs *flagSet, table string) error {
	if err := (outbox.Config{Table: table}).Validate(); err != nil {
		return fs.bad("--table: %s", configText(err))
	}
	return nil
}

// pgFlags choose the PostgreSQL database and the outbox table.
type pgFlags struct {
	url, table string
	fs         *flagSet
	cfg        *pgxpool.Config // set by check
}

func addPGFlags(fs *flagSet) *pgFlags {
	f := &pgFlags{fs: fs}
	def := os.Getenv("HOPPER_POSTGRES_URL")
	if def == "" {
		def = os.Getenv("DATABASE_URL")
	}
	fs.StringVar(&f.url, "postgres", def, "PostgreSQL URL, postgres://user:password@host:port/db (default from $HOPPER_POSTGRES_URL, else $DATABASE_URL)")
	fs.Lookup("postgres").DefValue = "" // the help shows no password
	fs.StringVar(&f.table, "table", "", `the outbox table, optionally schema-qualified (default "hopper_outbox")`)
	return f
}

// check reports, before anything connects, a PostgreSQL flag that cannot
// work as a usage error: a --table that is not a table's name, no URL, a
// URL that does not parse (pgx hides its password).
func (f *pgFlags) check() error {
	if err := checkTable(f.fs, f.table); err != nil {
		return err
	}
	if f.url == "" {
		return f.fs.bad("no PostgreSQL URL: set --postgres, $HOPPER_POSTGRES_URL or $DATABASE_URL")
	}
	cfg, err := pgxpool.ParseConfig(f.url)
	if err != nil {
		return f.fs.bad("--postgres: %v", err)
	}
	f.cfg = cfg
	return nil
}

// open connects to PostgreSQL and checks that it answers. Call check
// first.
func (f *pgFlags) open(ctx context.Context) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, f.cfg)
	if err != nil {
		return nil, fmt.Errorf("--postgres: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		// pgx's error names the user, the database and each address
		// tried, and hides the password, which the URL may not quote
		// as a URL ("host=h password=p").
		return nil, fmt.Errorf("cannot reach PostgreSQL: %w", err)
	}
	return pool, nil
}

// defaultRedisURL is the store when neither --redis nor $HOPPER_REDIS_URL
// names one.
const defaultRedisURL = "redis://localhost:6379/0"

// redisFlags choose the Redis store, as the hopper command's do.
type redisFlags struct {
	url, prefix string
	cluster     bool
	tls         *redisurl.TLSFlags // --redis-tls-*, as in hopper
	fs          *flagSet
	newClient   func() redis.UniversalClient // set by check
}

func addRedisFlags(fs *flagSet) *redisFlags {
	f := &redisFlags{fs: fs}
	def := os.Getenv("HOPPER_REDIS_URL")
	from := "; $HOPPER_REDIS_URL, when set, replaces it"
	if def == "" {
		def = defaultRedisURL
	} else {
		from = " from $HOPPER_REDIS_URL"
	}
	// The help gives the default once, its password hidden: the flag's
	// DefValue, which the flag package would print in clear, is empty.
	fs.StringVar(&f.url, "redis", def, fmt.Sprintf("Redis: host:port, or a URL redis://[user:password@]host:port/db (rediss:// for TLS); behind Sentinel, a sentinel's host:port with ?master_name=NAME (more sentinels with &addr=host:port, the master's password with &password=) (default %q%s)", urlredact.Redact(redisurl.Normalize(def)), from))
	fs.Lookup("redis").DefValue = ""
	fs.StringVar(&f.prefix, "redis-prefix", redisstore.DefaultPrefix, "key prefix of the store in Redis (redisstore.Config.Prefix)")
	fs.BoolVar(&f.cluster, "cluster", false, "the Redis URL names a Redis Cluster node (add more nodes with ?addr=host:port)")
	f.tls = redisurl.AddTLSFlags(fs.FlagSet)
	return f
}

// check reports, before anything connects, a Redis flag that cannot work
// as a usage error, as the hopper command does: an empty --redis, a
// --redis that does not parse (its password hidden), an empty
// --redis-prefix (redisstore would take it for its default), one
// that redisstore refuses (redisstore.Config.Validate, whose rule the
// message gives), --redis-tls-* flags that cannot work (with a redis://
// URL, a certificate without its key, a file that cannot be read or holds
// no certificate or key).
func (f *redisFlags) check() error {
	if strings.TrimSpace(f.url) == "" {
		return f.fs.bad("--redis is empty: give host:port or a redis:// URL, or leave the flag out for $HOPPER_REDIS_URL (else " + defaultRedisURL + ")")
	}
	if f.prefix == "" {
		// redisstore would take it for DefaultPrefix: another store than
		// the one named.
		return f.fs.bad("--redis-prefix is empty: give the key prefix of the store, or leave the flag out for the default")
	}
	if err := (redisstore.Config{Prefix: f.prefix}).Validate(); err != nil {
		return f.fs.bad("--redis-prefix: %s", configText(err))
	}
	f.url = redisurl.Normalize(f.url) // host:port names a server, as in hopper
	newClient, err := redisurl.Parse(f.url, f.cluster, f.tls)
	if err != nil {
		return f.fs.bad("%s", redisurl.Error(f.url, f.cluster, err))
	}
	f.newClient = newClient
	return nil
}

// open connects to Redis, checks that it answers and returns the store.
// Call check first.
func (f *redisFlags) open(ctx context.Context) (*redisstore.Store, func(), error) {
	rdb := f.newClient()
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("cannot reach Redis at %s: %w%s%s", urlredact.Redact(f.url), err, f.tls.Hint(err), redisurl.SchemeHint(f.url, err))
	}
	return redisstore.New(rdb, &redisstore.Config{Prefix: f.prefix}), func() { rdb.Close() }, nil
}
