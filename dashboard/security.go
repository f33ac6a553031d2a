package dashboard

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
	"time"
)

// contentSecurityPolicy allows scripts, styles and fetches from the
// dashboard itself only: no inline script or style, no plugin, no frame,
// no form posting elsewhere, and the dashboard may not be framed.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// securityHeaders sets the headers every response carries, errors and
// authentication challenges included. Pages are not cached (they may show
// job data); static files override Cache-Control.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// basicAuth requires the user and password of b. Both are compared as
// SHA-256 digests in constant time, so neither their content nor their
// length leaks through timing, and failed logins are limited per client
// address (loginlimit.go), on the clock now.
func basicAuth(b *BasicAuth, now func() time.Time, next http.Handler) http.Handler {
	limit := newLoginLimiter(now)
	wantUser := sha256.Sum256([]byte(b.User))
	wantPass := sha256.Sum256([]byte(b.Password))
	challenge := `Basic realm="` + strings.NewReplacer(`"`, "'", `\`, "/", "\r", " ", "\n", " ").Replace(b.Realm) + `", charset="UTF-8"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		addr := clientAddr(r)
		if ok {
			if d := limit.wait(addr); d > 0 {
				refuseLogin(w, d)
				return
			}
		}
		gotUser := sha256.Sum256([]byte(user))
		gotPass := sha256.Sum256([]byte(pass))
		match := subtle.ConstantTimeCompare(gotUser[:], wantUser[:]) & subtle.ConstantTimeCompare(gotPass[:], wantPass[:])
		if !ok || match != 1 {
			if ok {
				limit.fail(addr)
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "401 unauthorized: this dashboard needs a user and password", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostGuard refuses requests for a Host not in allowed, which defeats DNS
// rebinding against a dashboard listening on loopback.
func hostGuard(allowed map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !allowed[strings.ToLower(strings.Trim(host, "[]"))] {
			http.Error(w, "421 misdirected request: host not allowed (dashboard Config.AllowedHosts)", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses state-changing requests sent by a browser from
// another origin (Sec-Fetch-Site, else Origin against Host), answering 403
// with the dashboard's error page.
func (d *dash) crossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	for _, o := range d.cfg.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			panic("dashboard: Config.TrustedOrigins: " + err.Error())
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.cfg.Logger.Warn("dashboard: cross-origin request refused",
			"method", r.Method, "path", r.URL.Path, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
		d.renderError(w, r, http.StatusForbidden, "Cross-origin request refused",
			"This action came from another site. Actions are only accepted from the dashboard's own pages.")
	}))
	return cop.Handler(next)
}
