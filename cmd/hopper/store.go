package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/hopperq/hopper/internal/redisurl"
	"github.com/hopperq/hopper/internal/urlredact"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/redisstore"
)

// defaultRedisURL is the store when neither --redis nor $HOPPER_REDIS_URL
// names one.
const defaultRedisURL = "redis://localhost:6379/0"

// storeFlags are the flags that choose the store.
type storeFlags struct {
	url     string             // redis:// or rediss:// URL
	prefix  string             // redisstore key prefix
	cluster bool               // the URL names a Redis Cluster
	tls     *redisurl.TLSFlags // --redis-tls-*: CA, client certificate, server name

	fs *flag.FlagSet // the command's flags, for a usage error
}

// addStoreFlags registers the store flags on fs.
func addStoreFlags(fs *flag.FlagSet) *storeFlags {
	sf := &storeFlags{fs: fs}
	def := os.Getenv("HOPPER_REDIS_URL")
	from := "; $HOPPER_REDIS_URL, when set, replaces it"
	if def == "" {
		def = defaultRedisURL
	} else {
		from = " from $HOPPER_REDIS_URL"
	}
	// The help gives the default once, its password hidden: the flag's
	// DefValue, which the flag package would print in clear after the
	// text, is left empty.
	fs.StringVar(&sf.url, "redis", def, fmt.Sprintf("Redis to use: host:port, or a URL redis://[user:password@]host:port/db (rediss:// for TLS); behind Sentinel, a sentinel's host:port with ?master_name=NAME (more sentinels with &addr=host:port, the master's password with &password=) (default %q%s)", urlredact.Redact(redisurl.Normalize(def)), from))
	fs.Lookup("redis").DefValue = ""
	fs.StringVar(&sf.prefix, "redis-prefix", redisstore.DefaultPrefix, "key prefix of the store in Redis (redisstore.Config.Prefix)")
	fs.BoolVar(&sf.cluster, "cluster", false, "the Redis URL names a Redis Cluster node (add more nodes with ?addr=host:port)")
	sf.tls = redisurl.AddTLSFlags(fs)
	return sf
}

// storeOpener opens the store the flags name; close releases it.
type storeOpener func(ctx context.Context, sf *storeFlags) (s hopper.Store, close func(), err error)

// checked returns open preceded by sf.check, so that no command opens a
// store with flags that cannot work (run wraps every app's opener).
func (open storeOpener) checked() storeOpener {
	return func(ctx context.Context, sf *storeFlags) (hopper.Store, func(), error) {
		if err := sf.check(); err != nil {
			return nil, nil, err
		}
		return open(ctx, sf)
	}
}

// check reports a store flag that cannot work, before anything connects,
// as bad usage: an empty --redis (go-redis would take it for
// localhost:6379, whatever $HOPPER_REDIS_URL says), a --redis that does
// not parse (its password hidden), an empty --redis-prefix (redisstore
// would take it for its default), a --redis-prefix that redisstore
// refuses (redisstore.Config.Validate, whose rule the message gives), and
// --redis-tls-* flags that cannot work: given with a redis:// URL, a
// client certificate without its key or the other way round, a file that
// cannot be read or holds no certificate or key (redisurl.TLSFlags).
func (sf *storeFlags) check() error {
	_, err := sf.client()
	return err
}

// client checks the flags as check does and returns what makes the
// client of the Redis they name.
func (sf *storeFlags) client() (func() redis.UniversalClient, error) {
	if strings.TrimSpace(sf.url) == "" {
		return nil, badUsage(sf.fs, "--redis is empty: give host:port or a redis:// URL, or leave the flag out for $HOPPER_REDIS_URL (else "+defaultRedisURL+")")
	}
	if sf.prefix == "" {
		// redisstore would take it for DefaultPrefix: another store
		// than the one named.
		return nil, badUsage(sf.fs, "--redis-prefix is empty: give the key prefix of the store, or leave the flag out for %q", redisstore.DefaultPrefix)
	}
	if err := (redisstore.Config{Prefix: sf.prefix}).Validate(); err != nil {
		return nil, badUsage(sf.fs, "--redis-prefix: %s", strings.TrimPrefix(err.Error(), hopper.ErrInvalidConfig.Error()+": "))
	}
	raw := redisurl.Normalize(sf.url)
	newClient, err := redisurl.Parse(raw, sf.cluster, sf.tls)
	if err != nil {
		return nil, badUsage(sf.fs, "%s", redisurl.Error(raw, sf.cluster, err))
	}
	return newClient, nil
}

// openRedis opens a redisstore and checks that the server answers, so a
// wrong URL fails at once with a clear message.
func openRedis(ctx context.Context, sf *storeFlags) (hopper.Store, func(), error) {
	rdb, err := dialRedis(ctx, sf)
	if err != nil {
		return nil, nil, err
	}
	s := redisstore.New(rdb, &redisstore.Config{Prefix: sf.prefix})
	return s, func() { rdb.Close() }, nil
}

// dialRedis connects to the Redis the flags name and checks that it
// answers a PING within 5 s. Flags that cannot work are a usage error
// (check). When the PING fails over TLS, the message says which
// --redis-tls-* flag would help, if one would.
func dialRedis(ctx context.Context, sf *storeFlags) (redis.UniversalClient, error) {
	newClient, err := sf.client()
	if err != nil {
		return nil, err
	}
	raw := redisurl.Normalize(sf.url)
	rdb := newClient()
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %w%s%s", urlredact.Redact(raw), err, sf.tls.Hint(err), redisurl.SchemeHint(raw, err))
	}
	if c, ok := rdb.(*redis.Client); ok && isSentinel(pctx, c) {
		// A sentinel answers PING and INFO, then refuses what a store
		// sends (CONFIG GET): the commands failed with "unknown command",
		// and hopper check reported an unreadable layout.
		rdb.Close()
		return nil, fmt.Errorf("%s is a Redis Sentinel, not the server that holds the jobs: name its master with ?master_name=NAME (hopper <command> -h, --redis)", urlredact.Redact(raw))
	}
	return rdb, nil
}

// isSentinel reports whether c is connected straight to a Redis Sentinel
// (INFO server says redis_mode:sentinel).
func isSentinel(ctx context.Context, c *redis.Client) bool {
	info, err := c.Info(ctx, "server").Result()
	return err == nil && strings.Contains(info, "redis_mode:sentinel")
}
