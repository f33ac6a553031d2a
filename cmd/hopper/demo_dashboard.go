package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
)

// demoDashboard is the dashboard the demo serves.
type demoDashboard struct {
	url  string
	done chan error // receives serve's result once ctx is done
}

// startDemoDashboard serves the dashboard for store on addr, a loopback
// address (a port in use falls back to a free one), until ctx is done. It
// returns nil when addr is empty.
func startDemoDashboard(ctx context.Context, addr string, store hopper.Store, stderr io.Writer) (*demoDashboard, error) {
	if addr == "" {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	if !isLoopback(host) {
		return nil, fmt.Errorf("--addr %q: the demo serves its dashboard on loopback only (use hopper dashboard, with authentication, for anything else)", addr)
	}
	l, err := listen(addr, true)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := dashboard.New(store, &dashboard.Config{
		Title:        "hopper demo",
		AllowedHosts: slices.Concat(loopbackHosts, []string{host}),
		Logger:       log,
	})
	d := &demoDashboard{url: baseURL(l) + "/", done: make(chan error, 1)}
	go func() { d.done <- serve(ctx, l, h, log) }()
	return d, nil
}
