package outbox_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/outbox"
)

type ShipOrder struct {
	OrderID int64
}

func (ShipOrder) Kind() string { return "ship_order" }

// Enqueue a job in the transaction that creates the order: no job for a
// rolled-back order, no order without its job. (It needs a database, so it
// is compiled, not run.)
func ExampleEnqueue() {
	ctx := context.Background()
	db, err := sql.Open("pgx", "postgres://localhost/shop") // or any PostgreSQL driver
	if err != nil {
		log.Fatal(err)
	}
	if err := outbox.Migrate(ctx, db, ""); err != nil { // once, at start-up
		log.Fatal(err)
	}
	client := hopper.NewClient(memstore.New(nil), nil) // the store the relay fills
	ob := outbox.New(client, nil)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer tx.Rollback()
	var orderID int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO orders (total) VALUES (42) RETURNING id`).Scan(&orderID); err != nil {
		log.Fatal(err)
	}
	job, err := outbox.Enqueue(ctx, ob, tx, ShipOrder{OrderID: orderID}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err) // no order, no job
	}
	fmt.Println("order", orderID, "ships in job", job.ID)
}

// The tables the outbox needs, to add to your own migrations.
func ExampleSchema() {
	sql, err := outbox.Schema("shop.outbox")
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(sql, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "CREATE") {
			fmt.Println(line)
		}
	}
	// Output:
	// CREATE SCHEMA IF NOT EXISTS "shop";
	// CREATE TABLE IF NOT EXISTS "shop"."outbox" (
	// CREATE TABLE IF NOT EXISTS "shop"."outbox_dead" (
	// CREATE OR REPLACE FUNCTION "shop"."outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
	// CREATE TRIGGER "outbox_notify" AFTER INSERT ON "shop"."outbox"
}
