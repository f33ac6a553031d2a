package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
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
	url     string // redis:// or rediss:// URL
	prefix  string // redisstore key prefix
	cluster bool   // the URL names a Redis Cluster
}

// addStoreFlags registers the store flags on fs.
func addStoreFlags(fs *flag.FlagSet) *storeFlags {
	sf := &storeFlags{}
	def := os.Getenv("HOPPER_REDIS_URL")
	if def == "" {
		def = defaultRedisURL
	}
	fs.StringVar(&sf.url, "redis", def, "Redis to use: host:port, or a URL redis://[user:password@]host:port/db (rediss:// for TLS) (default from $HOPPER_REDIS_URL)")
	fs.StringVar(&sf.prefix, "redis-prefix", redisstore.DefaultPrefix, "key prefix of the store in Redis (redisstore.Config.Prefix)")
	fs.BoolVar(&sf.cluster, "cluster", false, "the Redis URL names a Redis Cluster node (add more nodes with ?addr=host:port)")
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

// check reports a store flag that cannot work, before anything connects:
// an empty --redis (go-redis would take it for localhost:6379, whatever
// $HOPPER_REDIS_URL says), and a --redis-prefix that redisstore refuses
// (redisstore.Config.Validate, whose rule the message gives).
func (sf *storeFlags) check() error {
	if strings.TrimSpace(sf.url) == "" {
		return errors.New("--redis is empty: give host:port or a redis:// URL, or leave the flag out for $HOPPER_REDIS_URL (else " + defaultRedisURL + ")")
	}
	if err := (redisstore.Config{Prefix: sf.prefix}).Validate(); err != nil {
		return fmt.Errorf("--redis-prefix: %s", strings.TrimPrefix(err.Error(), hopper.ErrInvalidConfig.Error()+": "))
	}
	return nil
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
// answers a PING within 5 s.
func dialRedis(ctx context.Context, sf *storeFlags) (redis.UniversalClient, error) {
	if err := sf.check(); err != nil {
		return nil, err
	}
	var rdb redis.UniversalClient
	raw := redisURL(sf.url)
	if sf.cluster {
		o, err := redis.ParseClusterURL(raw)
		if err != nil {
			return nil, fmt.Errorf("--redis %q: %w", redactURL(raw), err)
		}
		rdb = redis.NewClusterClient(o)
	} else {
		o, err := redis.ParseURL(raw)
		if err != nil {
			return nil, fmt.Errorf("--redis %q: %w", redactURL(raw), err)
		}
		rdb = redis.NewClient(o)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %w", redactURL(raw), err)
	}
	return rdb, nil
}

func redisURL(s string) string {
	if strings.Contains(s, "://") {
		return s
	}
	return "redis://" + s
}

// redactURL hides the password of a Redis URL for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
