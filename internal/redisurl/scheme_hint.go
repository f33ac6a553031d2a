package redisurl

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
)

// SchemeHint returns what to add to err, the error of a first command to
// the server raw names, when the URL's scheme may be the wrong one: a
// plain redis:// URL to a server that speaks TLS only (it closes the
// connection on the first bytes that are no handshake: EOF or a reset),
// and a rediss:// URL to one that does not speak TLS (it waits for the
// rest of what it takes for an inline command: the handshake times out,
// or it answers text that is no TLS record). "" when neither fits.
func SchemeHint(raw string, err error) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	tls := strings.HasPrefix(Normalize(raw), "rediss://")
	switch {
	case !tls && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(text, "connection reset by peer")):
		return "; the server closed the connection at once: if it takes TLS only, write rediss:// for TLS"
	case tls && (isTimeout(err) || strings.Contains(text, "first record does not look like a TLS handshake")):
		return "; no TLS handshake came back: if the server does not take TLS (its tls-port), write redis:// for a plain connection"
	}
	return ""
}

// isTimeout reports whether err is a deadline's: the context's or the
// connection's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
