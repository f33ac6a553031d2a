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

// checkDemoAddr refuses a --addr the demo cannot serve its dashboard on:
// one that does not parse, and one beyond loopback. Empty is no
// dashboard.
func checkDemoAddr(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %s", addr, errText(err))
	}
	if !isLoopback(host) {
		return fmt.Errorf("--addr %q: the demo serves its dashboard on loopback only (use hopper dashboard, with authentication, for anything else)", addr)
	}
	return nil
}

// startDemoDashboard serves the dashboard for store on addr, a loopback
// address (a port in use falls back to a free one), until ctx is done. It
// returns nil when addr is empty.
func startDemoDashboard(ctx context.Context, addr string, store hopper.Store, stderr io.Writer) (*demoDashboard, error) {
	if addr == "" {
		return nil, nil
	}
	if err := checkDemoAddr(addr); err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr)
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
