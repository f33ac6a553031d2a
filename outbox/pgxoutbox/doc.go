// Package pgxoutbox is the PostgreSQL side of package outbox that needs
// pgx: the Relay, which moves committed outbox rows into the store, and Tx,
// which lets outbox.Enqueue write in a pgx transaction.
//
// Run a relay inside a Worker, as one of its services:
//
//	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	ob := outbox.New(client, nil) // client: a hopper.Client on the store
//	relay := pgxoutbox.NewRelay(pool, ob, nil)
//	w := hopper.NewWorker(store, &hopper.WorkerConfig{
//		Services: []func(context.Context) error{relay.Run},
//	})
//
// or on its own, with relay.Run(ctx), or from the command line with
// "hopper outbox relay" (the hopper-outbox program). Any number of relays
// may run at once.
//
// Relay.Stats reads the outbox's depth, relay lag and dead letters; a
// Relay is also the outbox source of the dashboard
// (dashboard.Config.Outbox), and reports OpenTelemetry gauges while it
// runs (see RelayConfig.MeterProvider).
package pgxoutbox
