package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/internal/redisurl"
	"github.com/hopperq/hopper/internal/urlredact"
)

// passwordEnv names the environment variable that holds the dashboard's
// basic auth password, so it never shows in a process listing.
const passwordEnv = "HOPPER_DASHBOARD_PASSWORD"

// dashboardFlags are the flags of "hopper dashboard" beyond the store's.
type dashboardFlags struct {
	addr, prefix, title string
	traceURL            string
	readOnly, insecure  bool
	user, passwordFile  string
	tlsCert, tlsKey     string
	plainHTTP           bool
	refresh             *durationValue
}

// runDashboard serves the web dashboard for a Redis store until ctx is
// done. It refuses to listen beyond loopback without authentication unless
// told --insecure.
func runDashboard(ctx context.Context, a *app, args []string) error {
	fs := newFlags("dashboard", "hopper dashboard [--redis URL] [--addr host:port] [--prefix /path] [--read-only] [--user NAME --password-file FILE] [--tls-cert FILE --tls-key FILE]", a.stderr)
	sf := addStoreFlags(fs)
	var f dashboardFlags
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on; anything but loopback needs --user or --insecure")
	fs.StringVar(&f.prefix, "prefix", "", "URL path to serve the dashboard under, such as /admin/jobs (for a reverse proxy)")
	fs.StringVar(&f.title, "title", "", "title shown in the page header (default \"hopper\")")
	fs.BoolVar(&f.readOnly, "read-only", false, "turn every action (retry, delete, cancel, pause, resume) off on the server")
	fs.StringVar(&f.user, "user", "", "require HTTP basic auth with this user; the password comes from --password-file or $"+passwordEnv)
	fs.StringVar(&f.passwordFile, "password-file", "", "file holding the basic auth password (its first line)")
	fs.BoolVar(&f.insecure, "insecure", false, "allow listening beyond loopback without authentication (anyone who can reach it can act on jobs)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve the dashboard itself over HTTPS with this certificate (PEM, the chain after the leaf); needs --tls-key. For TLS to Redis, see --redis-tls-ca, --redis-tls-cert and --redis-tls-key")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the private key (PEM) of --tls-cert, for the dashboard's HTTPS")
	fs.BoolVar(&f.plainHTTP, "plain-http", false, "allow basic auth over plain HTTP beyond loopback, when a TLS proxy in front protects the connection")
	fs.StringVar(&f.traceURL, "trace-url", "", "link trace IDs to your tracing UI: a URL holding {trace_id}, such as https://jaeger.example.com/trace/{trace_id}")
	f.refresh = durationFlag(fs, "refresh", dashboard.DefaultRefreshInterval, "how often open pages refresh their counts (a `duration`, such as 5s); 0 turns live updates off")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badUsage(fs, "unexpected argument %q", pos[0])
	}
	opts, loopback, err := f.options(fs)
	if err != nil {
		return err
	}
	store, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()

	var tlsConf *tls.Config
	if f.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert and --tls-key: %w", err)
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	l, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	base := baseURL(l)
	if tlsConf != nil {
		l = tls.NewListener(l, tlsConf)
		base = "https://" + strings.TrimPrefix(base, "http://")
	}
	log := slog.New(slog.NewTextHandler(a.stderr, nil))
	opts.Logger = log
	var h http.Handler = dashboard.New(store, opts)
	if opts.Prefix != "" {
		mux := http.NewServeMux()
		mux.Handle(opts.Prefix+"/", http.StripPrefix(opts.Prefix, h))
		mux.Handle(opts.Prefix, http.StripPrefix(opts.Prefix, h))
		h = mux
	}
	mode := "read-write"
	if opts.ReadOnly {
		mode = "read-only"
	}
	auth := "no authentication"
	if opts.BasicAuth != nil {
		auth = "basic auth as " + opts.BasicAuth.User
		if tlsConf == nil && !loopback {
			auth += " over plain HTTP (--plain-http)"
		}
	} else if !loopback {
		auth = "NO AUTHENTICATION (--insecure)"
	}
	fmt.Fprintf(a.stdout, "hopper dashboard: %s%s/ (%s, %s; store %s, prefix %q)\n",
		base, opts.Prefix, mode, auth, urlredact.Redact(redisurl.Normalize(sf.url)), sf.prefix)
	return serve(ctx, l, h, log)
}

// options turns the flags into dashboard options and says whether the
// address is loopback. Flags it cannot take are bad usage: it refuses a
// non-loopback address without authentication unless --insecure, and
// basic auth over plain HTTP beyond loopback (the password would cross
// the network in clear) unless --tls-cert and --tls-key or --plain-http.
// A password file that cannot be read is an error of its own.
func (f *dashboardFlags) options(fs *flag.FlagSet) (*dashboard.Config, bool, error) {
	host, _, err := net.SplitHostPort(f.addr)
	if err != nil {
		return nil, false, badUsage(fs, "--addr %q: %s", f.addr, errText(err))
	}
	prefix := strings.TrimRight(f.prefix, "/")
	if prefix != "" && !strings.HasPrefix(prefix, "/") {
		return nil, false, badUsage(fs, "--prefix %q must start with /", f.prefix)
	}
	if err := (dashboard.Config{Prefix: prefix}).Validate(); err != nil {
		return nil, false, badUsage(fs, "--prefix %q must hold no ?, #, quotes, <, >, \\ or spaces", f.prefix)
	}
	if f.refresh.d < 0 {
		return nil, false, badUsage(fs, "--refresh %s is negative: give how often pages refresh, such as 5s, or 0 to turn live updates off", f.refresh)
	}
	opts := &dashboard.Config{Prefix: prefix, Title: f.title, ReadOnly: f.readOnly, RefreshInterval: f.refresh.d, TraceURL: f.traceURL}
	if err := (dashboard.Config{TraceURL: f.traceURL}).Validate(); err != nil {
		return nil, false, badUsage(fs, "--trace-url: %s", errText(err))
	}
	if f.refresh.d == 0 {
		opts.RefreshInterval = -1
	}
	if f.user != "" {
		pw, err := f.password(fs)
		if err != nil {
			return nil, false, err
		}
		opts.BasicAuth = &dashboard.BasicAuth{User: f.user, Password: pw}
	} else if f.passwordFile != "" {
		return nil, false, badUsage(fs, "--password-file needs --user")
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return nil, false, badUsage(fs, "--tls-cert and --tls-key go together")
	}
	loopback := isLoopback(host)
	if opts.BasicAuth != nil && !loopback && f.tlsCert == "" && !f.plainHTTP {
		return nil, false, badUsage(fs, "refusing to take basic auth passwords over plain HTTP on %s: anyone on the path could read them. "+
			"Give --tls-cert and --tls-key, listen on 127.0.0.1, or pass --plain-http when a TLS proxy in front protects the connection", f.addr)
	}
	switch {
	case opts.BasicAuth != nil:
	case loopback:
		// No authentication on loopback: refuse other Host headers, so a web
		// page cannot reach the dashboard through DNS rebinding.
		opts.AllowedHosts = slices.Concat(loopbackHosts, []string{host})
	case !f.insecure:
		return nil, false, badUsage(fs, "refusing to listen on %s without authentication: anyone who reaches it could delete jobs. "+
			"Use --user and --password-file (or $%s), listen on 127.0.0.1, or pass --insecure", f.addr, passwordEnv)
	}
	return opts, loopback, nil
}

// password reads the basic auth password from --password-file or the
// environment.
func (f *dashboardFlags) password(fs *flag.FlagSet) (string, error) {
	if f.passwordFile != "" {
		b, err := os.ReadFile(f.passwordFile)
		if err != nil {
			return "", fmt.Errorf("--password-file: %w", err)
		}
		pw, _, _ := strings.Cut(string(b), "\n")
		pw = strings.TrimRight(pw, "\r")
		if pw == "" {
			return "", fmt.Errorf("--password-file %s: the first line is empty", f.passwordFile)
		}
		return pw, nil
	}
	if pw := os.Getenv(passwordEnv); pw != "" {
		return pw, nil
	}
	return "", badUsage(fs, "--user needs a password: --password-file FILE or $%s", passwordEnv)
}
