// Package redisurl reads the --redis flag of the hopper command and of
// hopper-outbox the same way: host:port or a redis:// (rediss://) URL, one
// client or a Cluster's, with errors that never show the password; and
// their --redis-tls-* flags (TLSFlags), which a rediss:// URL cannot say:
// a private CA, a client certificate for mutual TLS, a server name.
package redisurl

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/urlredact"
)

// Normalize returns s as a URL: s itself when it has a scheme ("://"),
// else "redis://" + s, so that host:port names a server.
func Normalize(s string) string {
	if strings.Contains(s, "://") {
		return s
	}
	return "redis://" + s
}

// Parse reads raw (a URL, see Normalize) as go-redis does and returns what
// makes its client: a Cluster client when cluster is true; a Sentinel's
// failover client when the URL names the master with master_name
// (go-redis's ParseFailoverURL: the URL's host and each addr= are
// sentinels, its user information the sentinels', username= and password=
// the master's); one server's otherwise. The TLS flags
// t (nil for none) apply to a rediss:// URL; given with a redis:// URL
// they are an error. Every client honours its calls' context deadlines
// (go-redis's ContextTimeoutEnabled): a command's per-call bound, such as
// the dashboard's 2 s per queue, holds against a server that stopped
// answering, where go-redis alone waits out its read timeout (5 s) and
// its retries. Parse reads t's files and connects to nothing. The
// error is go-redis's for the URL, or a *FlagError for t; Error words
// both for a user.
func Parse(raw string, cluster bool, t *TLSFlags) (func() redis.UniversalClient, error) {
	if cluster {
		if sentinel(raw) {
			return nil, errors.New("master_name names a Sentinel's master: a Sentinel URL is not a Cluster's (leave out --cluster)")
		}
		o, err := redis.ParseClusterURL(raw)
		if err != nil {
			return nil, err
		}
		if o.TLSConfig, err = t.config(o.TLSConfig, urlredact.Redact(raw)); err != nil {
			return nil, err
		}
		o.ContextTimeoutEnabled = true
		return func() redis.UniversalClient { return redis.NewClusterClient(o) }, nil
	}
	if sentinel(raw) {
		o, err := redis.ParseFailoverURL(raw)
		if err != nil {
			return nil, err
		}
		if o.TLSConfig, err = t.config(o.TLSConfig, urlredact.Redact(raw)); err != nil {
			return nil, err
		}
		o.ContextTimeoutEnabled = true
		return func() redis.UniversalClient { return redis.NewFailoverClient(o) }, nil
	}
	o, err := redis.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	if o.TLSConfig, err = t.config(o.TLSConfig, urlredact.Redact(raw)); err != nil {
		return nil, err
	}
	o.ContextTimeoutEnabled = true
	return func() redis.UniversalClient { return redis.NewClient(o) }, nil
}

// Error words err, Parse's error for raw, as `--redis "<raw>": why`. The
// parse error may quote the URL, password and all: when the URL holds a
// password, it is the error of the URL with the password hidden, and when
// only the user information fails to parse, it says what to escape. A
// *FlagError (a TLS flag) is its own text: it names the flag.
func Error(raw string, cluster bool, err error) string {
	if ferr, ok := errors.AsType[*FlagError](err); ok {
		return ferr.Error()
	}
	shown := urlredact.Redact(raw)
	if shown != raw {
		if _, err = Parse(shown, cluster, nil); err == nil {
			return fmt.Sprintf("--redis %q: its user name or password does not parse: escape the characters %% / @ : ? # in them (%%25 %%2F %%40 %%3A %%3F %%23)", shown)
		}
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err // its text quotes the URL again
	}
	return fmt.Sprintf("--redis %q: %v", shown, err)
}

// sentinel reports whether raw names a master by its Sentinel name (a
// master_name query parameter), which a URL of one server or of a
// Cluster cannot hold.
func sentinel(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Query().Has("master_name")
}
