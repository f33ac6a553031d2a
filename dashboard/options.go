package dashboard

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hopperq/hopper"
)

// Config configures the dashboard. A nil *Config, and every zero field,
// means the documented default. New copies the options; changing them
// afterwards has no effect.
type Config struct {
	// Prefix is the path the dashboard is mounted at, such as "/admin/jobs".
	// The handler expects requests with the prefix already removed (mount it
	// with http.StripPrefix) and starts every link it generates with it.
	// Defaults to "" (mounted at "/"). A trailing slash is ignored; a prefix
	// that does not start with '/' or holds '?', '#', '"', '\'', '<', '>' or
	// a space makes New panic.
	Prefix string

	// Title names the dashboard in the page header and the browser tab.
	// Defaults to "hopper".
	Title string

	// ReadOnly turns every action (retry, delete, cancel, pause, resume)
	// off on the server: their requests are answered 403 Forbidden, and the
	// pages show no buttons. Defaults to false.
	ReadOnly bool

	// Auth, when set, wraps the whole dashboard (pages, JSON, static files
	// and actions): it decides who gets in, e.g. by checking a session
	// cookie or a header set by an authenticating proxy, and answers the
	// request itself when the user is not allowed. It runs before
	// BasicAuth when both are set. Defaults to none.
	Auth func(http.Handler) http.Handler

	// BasicAuth, when set, requires HTTP basic authentication with this user
	// and password on every request; credentials are compared in constant
	// time. Use it behind TLS only: basic auth sends the password in every
	// request. Defaults to none.
	BasicAuth *BasicAuth

	// Redact is applied to every decoded value that leaves the server (job
	// args, results and metadata), in pages, JSON and CLI output alike, and
	// before the args search runs, so a search cannot reveal a redacted
	// value. Defaults to DefaultRedact; set NoRedact to show values as they
	// are.
	Redact RedactFunc

	// TrustedOrigins lists origins ("https://ops.example.com") allowed to
	// send actions besides the dashboard's own; needed only behind a proxy
	// that rewrites the Host header. Every other cross-origin action is
	// refused with 403. An origin that does not parse makes New panic.
	TrustedOrigins []string

	// AllowedHosts, when set, refuses requests whose Host header (without
	// port) is not listed, with 421 Misdirected Request. It defends a
	// dashboard without authentication on a loopback address against DNS
	// rebinding: set it to "localhost", "127.0.0.1" and "::1" there (the
	// hopper command does). Defaults to any host.
	AllowedHosts []string

	// RefreshInterval is how often open pages fetch fresh counts and charts.
	// Defaults to 2 s; negative turns live updates off.
	RefreshInterval time.Duration

	// PageSize is how many jobs a list page shows. Defaults to 50; at most
	// 500.
	PageSize int

	// Logger receives store errors and an audit record of every action
	// (who, what, where, how many). Defaults to slog.Default(). A store
	// error is logged with a request_id, the ID the operator's page (or
	// JSON answer, or X-Request-Id header) shows instead of the error.
	Logger *slog.Logger

	// Now is the clock the pages measure ages and the throughput window
	// with. Defaults to time.Now; tests set it to fix relative times.
	Now func() time.Time

	// TraceURL, when set, links a job's trace ID (from its traceparent) to
	// your tracing UI: the URL with {trace_id} replaced by the 32-digit hex
	// ID, such as "https://jaeger.example.com/trace/{trace_id}" or
	// "https://ui.honeycomb.io/team/environments/prod/trace?trace_id={trace_id}".
	// It must be an http or https URL holding {trace_id}. Defaults to no
	// link.
	TraceURL string

	// Outbox, when set, adds a transactional outbox's backlog to the
	// overview page and to GET /api/stats ("outbox"): the jobs committed
	// and waiting for a relay, the relay lag (how long the oldest has
	// waited) and the rows the store refused. Pass the outbox's relay
	// (pgxoutbox.NewRelay; it need not run in this process). Defaults to
	// none: no panel, no "outbox" in the JSON.
	Outbox OutboxSource
}

// BasicAuth is a user and password for HTTP basic authentication.
//
// Failed logins are limited per client address: it may fail 10 times,
// then once more every 6 s; an address over that gets 429 with
// Retry-After until then, whatever it sends. A request without credentials does not
// count. Behind a reverse proxy every client shares the proxy's address.
type BasicAuth struct {
	// User and Password must both be non-empty, or New panics.
	User, Password string
	// Realm is shown by browsers in the login prompt. Defaults to the
	// dashboard's Title.
	Realm string
}

// Defaults and limits of Config.
const (
	// DefaultTitle is the Title when Config leaves it empty.
	DefaultTitle = "hopper"
	// DefaultRefreshInterval is how often pages refresh their counts when
	// Config.RefreshInterval is zero.
	DefaultRefreshInterval = 2 * time.Second
	// DefaultPageSize is the PageSize when Config leaves it zero.
	DefaultPageSize = 50
	// MaxPageSize caps Config.PageSize.
	MaxPageSize = 500
)

// config is Config with defaults applied and checked.
type config struct {
	Config
	allowedHosts map[string]bool
}

// Validate reports whether o is a valid configuration: nil, or an error
// wrapping hopper.ErrInvalidConfig that names the field. New panics with
// the same error.
func (o Config) Validate() error {
	_, err := o.withDefaults()
	return err
}

// withDefaults returns o with defaults applied, or the error of the first
// invalid field.
func (o Config) withDefaults() (config, error) {
	c := config{Config: o}
	c.Prefix = strings.TrimRight(c.Prefix, "/")
	if c.Prefix != "" && (c.Prefix[0] != '/' || strings.ContainsAny(c.Prefix, "?#\"'<> \t\r\n\\")) {
		return c, fmt.Errorf("%w: dashboard Config.Prefix %q must start with '/' and hold no '?', '#', quotes, '<', '>', '\\' or spaces", hopper.ErrInvalidConfig, o.Prefix)
	}
	if c.Title == "" {
		c.Title = DefaultTitle
	}
	if b := c.BasicAuth; b != nil {
		if b.User == "" || b.Password == "" {
			return c, fmt.Errorf("%w: dashboard Config.BasicAuth needs a non-empty User and Password", hopper.ErrInvalidConfig)
		}
		cp := *b
		if cp.Realm == "" {
			cp.Realm = c.Title
		}
		c.BasicAuth = &cp
	}
	if c.Redact == nil {
		c.Redact = DefaultRedact
	}
	for _, origin := range c.TrustedOrigins {
		if u, err := url.Parse(origin); err != nil || u.Scheme == "" || u.Host == "" {
			return c, fmt.Errorf("%w: dashboard Config.TrustedOrigins: %q is not an origin like https://example.com", hopper.ErrInvalidConfig, origin)
		}
	}
	if len(c.AllowedHosts) > 0 {
		c.allowedHosts = make(map[string]bool, len(c.AllowedHosts))
		for _, h := range c.AllowedHosts {
			c.allowedHosts[strings.ToLower(strings.Trim(h, "[]"))] = true
		}
	}
	if c.RefreshInterval == 0 {
		c.RefreshInterval = DefaultRefreshInterval
	}
	switch {
	case c.PageSize <= 0:
		c.PageSize = DefaultPageSize
	case c.PageSize > MaxPageSize:
		c.PageSize = MaxPageSize
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if t := c.TraceURL; t != "" {
		u, err := url.Parse(strings.ReplaceAll(t, "{trace_id}", "0"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.Contains(t, "{trace_id}") {
			return c, fmt.Errorf("%w: dashboard Config.TraceURL %q must be an http(s) URL holding {trace_id}", hopper.ErrInvalidConfig, t)
		}
	}
	return c, nil
}
