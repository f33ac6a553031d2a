// Package urlredact hides the password of a URL for messages, shared by
// the hopper command and hopper-outbox.
package urlredact

import (
	"net/url"
	"strings"
)

// Redact returns raw with its passwords, if any, replaced by "xxxxx": the
// user information's, as url.URL.Redacted does (user:xxxxx@), in a URL
// that does not parse too (there the user info is what lies before the
// last "@" after "://"), and a password= query parameter's (a Sentinel
// URL's password of the master). A URL without a password is returned as
// it is. Safe for concurrent use.
func Redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		if q := u.Query(); q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
			raw = u.String()
		}
		if u.User != nil {
			return u.Redacted()
		}
	}
	head, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		head, rest = raw[:i+3], raw[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return raw
	}
	return head + user + ":xxxxx" + rest[at:]
}
