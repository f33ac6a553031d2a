package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/urlredact"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// runRelay relays until interrupted.
func runRelay(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := newFlags("relay", "hopper outbox relay [--postgres URL] [--redis URL] [--table NAME] [--batch N] [--poll DURATION]")
	pf := addPGFlags(fs)
	rf := addRedisFlags(fs)
	batch := fs.Int("batch", pgxoutbox.DefaultBatchSize, "the most rows one relay transaction moves")
	poll := fs.Duration("poll", pgxoutbox.DefaultPollInterval, "how often to look for rows without a notification")
	if err := fs.parse(args); err != nil {
		return err
	}
	// Every flag is checked before anything connects.
	for _, c := range []struct {
		flag string
		cfg  pgxoutbox.RelayConfig
	}{{"--batch", pgxoutbox.RelayConfig{BatchSize: *batch}}, {"--poll", pgxoutbox.RelayConfig{PollInterval: *poll}}} {
		if err := c.cfg.Validate(); err != nil {
			return fs.bad("%s: %s", c.flag, configText(err))
		}
	}
	if err := pf.check(); err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	pool, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	st, closeRedis, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer closeRedis()
	ob := outbox.New(hopper.NewClient(st, nil), &outbox.Config{Table: pf.table})
	cfg := pgxoutbox.RelayConfig{BatchSize: *batch, PollInterval: *poll, Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	relay := pgxoutbox.NewRelay(pool, ob, &cfg)
	fmt.Fprintf(stdout, "relaying %s to Redis %s (prefix %q); Ctrl-C stops\n", ob.Names().Table, urlredact.Redact(rf.url), rf.prefix)
	return relay.Run(ctx)
}

// runMigrate creates the outbox tables.
func runMigrate(ctx context.Context, stdout, _ io.Writer, args []string) error {
	fs := newFlags("migrate", "hopper outbox migrate [--postgres URL] [--table NAME]")
	pf := addPGFlags(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := pf.check(); err != nil {
		return err
	}
	names, err := outbox.NamesOf(pf.table)
	if err != nil {
		return err
	}
	pool, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := outbox.Migrate(ctx, pgxoutbox.Tx(pool), pf.table); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "outbox %s ready (schema version %d)\n", names.Table, outbox.SchemaVersion)
	return nil
}

// statsLine is what "stats --json" prints.
type statsLine struct {
	Table  string     `json:"table"`
	Depth  int64      `json:"depth"`
	Oldest *time.Time `json:"oldest,omitempty"`
	LagMS  int64      `json:"lag_ms"`
	Dead   int64      `json:"dead"`
}

// runStats prints the outbox's depth, lag and dead rows.
func runStats(ctx context.Context, stdout, _ io.Writer, args []string) error {
	fs := newFlags("stats", "hopper outbox stats [--postgres URL] [--table NAME] [--json]")
	pf := addPGFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := pf.check(); err != nil {
		return err
	}
	pool, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	// The stats need no store: a client on one that is never used.
	ob := outbox.New(hopper.NewClient(memstore.New(nil), nil), &outbox.Config{Table: pf.table})
	s, err := pgxoutbox.NewRelay(pool, ob, nil).Stats(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		out := statsLine{Table: ob.Names().Channel, Depth: s.Depth, LagMS: s.Age.Milliseconds(), Dead: s.Dead}
		if !s.Oldest.IsZero() {
			t := s.Oldest.UTC()
			out.Oldest = &t
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "outbox %s: %d waiting, relay lag %v, %d dead\n", ob.Names().Channel, s.Depth, s.Age.Round(time.Millisecond), s.Dead)
	return nil
}

// runSchema prints the migration.
func runSchema(_ context.Context, stdout, _ io.Writer, args []string) error {
	fs := newFlags("schema", "hopper outbox schema [--table NAME]")
	table := fs.String("table", "", `the outbox table, optionally schema-qualified (default "hopper_outbox")`)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := checkTable(fs, *table); err != nil {
		return err
	}
	sql, err := outbox.Schema(*table)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, sql)
	return err
}
