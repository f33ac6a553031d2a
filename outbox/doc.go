// Package outbox enqueues hopper jobs inside the application's SQL
// transaction: a job is enqueued if and only if the transaction commits.
//
// Enqueue and EnqueueMany write each job, its args encoded and its options
// resolved exactly as hopper.Enqueue does (a hopper.PreparedJob), into an
// outbox table in the caller's transaction, and return its ID at once. A
// relay (package pgxoutbox) moves committed rows into the store with those
// IDs, in batches, and deletes them in the same database transaction.
//
//	tx, err := db.BeginTx(ctx, nil) // database/sql, any PostgreSQL driver
//	...
//	_, err = tx.ExecContext(ctx, `INSERT INTO orders ...`)
//	job, err := outbox.Enqueue(ctx, ob, tx, ShipOrder{ID: id}, nil)
//	...
//	err = tx.Commit() // the job exists if and only if this commits
//
// With pgx, wrap the transaction: outbox.Enqueue(ctx, ob, pgxoutbox.Tx(tx),
// ...). This package imports no database driver: programs that write with
// database/sql and the driver of their choice do not link pgx (the relay
// does).
//
// # The guarantee
//
// A rolled-back transaction, or one that fails, leaves no row, so its jobs
// never reach the store. A committed transaction leaves one row per job,
// and a running relay stores each of them, with the ID Enqueue returned,
// at least once: a relay that dies or loses a connection before its
// commit leaves the rows for the next batch. Storing a job whose ID the
// store still holds (waiting, running, retrying, dead, or kept done for
// its Retention) adds nothing: a relay retry is a duplicate of the job
// itself. So each committed job runs as every hopper job does, at least
// once; the single exception is a relay that dies between storing a batch
// and committing the deletion while one of the batch's jobs already
// finished and left the store: that job is stored and run again. Give jobs
// a Retention (hopper.EnqueueOpts.Retention) longer than a relay takes to
// come back, and that case is a duplicate too.
//
// While a relay runs, a committed job is ready in the store within a few
// milliseconds (the outbox's trigger notifies the relays when a
// transaction that wrote rows commits); without a notification, within
// the relay's poll interval (1 s by default).
//
// Config are applied as hopper.Enqueue applies them, with two things
// fixed when the row is written rather than when the job is stored: the ID
// and the due time (a Delay is measured from the write, on the writer's
// clock). A unique job (hopper.EnqueueOpts.Unique) is checked when the
// relay stores it: a duplicate is dropped then. When the transaction's
// context carries an OpenTelemetry span, each job's trace starts under it
// in a PRODUCER span whose context goes into the job's metadata, where
// hopper's worker middleware (middleware.Tracing) continues it: one trace
// from the transaction to the handler.
//
// # The table
//
// Migrate creates the outbox (Schema returns the SQL, for your own
// migration tool). For the default table, hopper_outbox (PostgreSQL 11 or
// newer):
//
//	CREATE TABLE IF NOT EXISTS "hopper_outbox" (
//	    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
//	    job_id     text        NOT NULL, -- the job's ID, fixed when written
//	    queue      text        NOT NULL,
//	    kind       text        NOT NULL,
//	    job        bytea       NOT NULL, -- hopper.PreparedJob.MarshalBinary: version byte, then msgpack
//	    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
//	);
//	CREATE TABLE IF NOT EXISTS "hopper_outbox_dead" (
//	    seq        bigint      PRIMARY KEY,
//	    job_id     text        NOT NULL,
//	    queue      text        NOT NULL,
//	    kind       text        NOT NULL,
//	    job        bytea       NOT NULL,
//	    created_at timestamptz NOT NULL,
//	    failed_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
//	    error      text        NOT NULL
//	);
//	-- hopper_outbox_notify() runs pg_notify('hopper_outbox', ''); the
//	-- trigger is created when missing:
//	CREATE TRIGGER "hopper_outbox_notify" AFTER INSERT ON "hopper_outbox"
//	    FOR EACH STATEMENT EXECUTE FUNCTION "hopper_outbox_notify"();
//
// The notification comes from a statement-level trigger rather than from
// Enqueue, so that rows written any other way (COPY, another language, a
// hand-written INSERT) wake the relays too, once per statement, and only
// when their transaction commits. The job column is the stable, versioned
// encoding of hopper.PreparedJob; the other columns are for people
// querying the table. Rows the store refuses as invalid move to the
// dead-letter table with the error (see pgxoutbox.Relay); put one back
// with WITH d AS (DELETE FROM hopper_outbox_dead WHERE seq = ... RETURNING
// job_id, queue, kind, job) INSERT INTO hopper_outbox (job_id, queue,
// kind, job) SELECT * FROM d.
//
// # Other databases
//
// PostgreSQL is what this package writes ($1 placeholders, the trigger)
// and what pgxoutbox relays. For another database, write rows of the same
// shape with hopper.Prepare and PreparedJob.MarshalBinary, and relay them
// with hopper.PreparedJob.UnmarshalBinary and EnqueuePrepared,
// locking rows as FOR UPDATE SKIP LOCKED does (MySQL 8 has it too) and
// deleting them in the transaction that locked them.
package outbox
