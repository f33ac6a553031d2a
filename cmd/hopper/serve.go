package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// isLoopback reports whether every address host (a name or an IP, from a
// listen address) resolves to is a loopback address. An empty host means
// every interface, which is not loopback.
func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// listen listens on addr; with fallback, a port already in use is replaced
// by a free one on the same host.
func listen(addr string, fallback bool) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err == nil || !fallback || !isAddrInUse(err) {
		return l, err
	}
	host, _, serr := net.SplitHostPort(addr)
	if serr != nil {
		return nil, err
	}
	return net.Listen("tcp", net.JoinHostPort(host, "0"))
}

func isAddrInUse(err error) bool {
	return err != nil && strings.Contains(err.Error(), "address already in use")
}

// baseURL returns the http:// URL of a listener, with the loopback host
// spelt as a browser can open it.
func baseURL(l net.Listener) string {
	a := l.Addr().(*net.TCPAddr)
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(a.Port))
}

// serve serves h on l until ctx is done, then shuts down: the contexts of
// the requests under way are cancelled, which ends the dashboard's event
// streams (they last as long as their page is open, and Shutdown alone
// waits for them), and the requests get up to five seconds to return.
func serve(ctx context.Context, l net.Listener, h http.Handler, log *slog.Logger) error {
	reqCtx, stopRequests := context.WithCancel(context.Background())
	defer stopRequests()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	stopRequests()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// loopbackHosts are the Host headers a dashboard on loopback without
// authentication accepts (see dashboard.Options.AllowedHosts).
var loopbackHosts = []string{"localhost", "127.0.0.1", "::1"}
