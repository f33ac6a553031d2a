package outbox

import (
	"context"
	"fmt"
	"strings"
)

// SchemaVersion is the version of the tables Schema creates, recorded as
// the outbox table's comment.
const SchemaVersion = 1

// schemaSQL is the migration, one script that PostgreSQL runs as one
// transaction. {{...}} are replaced by Names.
const schemaSQL = `-- hopper transactional outbox, schema version 1 (PostgreSQL 11 or newer).
-- Serialise concurrent migrations.
SELECT pg_advisory_xact_lock(4242424242);
{{schema}}
-- Jobs written by committed transactions, waiting for a relay. A relay
-- locks a batch (FOR UPDATE SKIP LOCKED, in seq order), stores the jobs and
-- deletes their rows in one transaction.
CREATE TABLE IF NOT EXISTS {{table}} (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id     text        NOT NULL, -- the job's ID, fixed when written
    queue      text        NOT NULL,
    kind       text        NOT NULL,
    job        bytea       NOT NULL, -- hopper.PreparedJob.MarshalBinary: version byte, then msgpack
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE {{table}} IS 'hopper outbox, schema version 1';

-- Rows the store refused as invalid, with the reason: kept, never retried.
CREATE TABLE IF NOT EXISTS {{dead}} (
    seq        bigint      PRIMARY KEY,
    job_id     text        NOT NULL,
    queue      text        NOT NULL,
    kind       text        NOT NULL,
    job        bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    failed_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    error      text        NOT NULL
);

-- Wakes the relays (LISTEN {{channel}}) once per inserting statement. A
-- notification is delivered only when its transaction commits.
CREATE OR REPLACE FUNCTION {{function}}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{{channel}}', '');
    RETURN NULL;
END
$$;
-- Created when missing only: CREATE TRIGGER (or DROP TRIGGER) locks the
-- table against every writer and relay, behind any open transaction that
-- wrote to it, and this runs at every start.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '{{table}}'::regclass AND tgname = '{{triggername}}') THEN
        CREATE TRIGGER {{trigger}} AFTER INSERT ON {{table}}
            FOR EACH STATEMENT EXECUTE FUNCTION {{function}}();
    END IF;
END
$$;
`

// Schema returns the SQL that creates the outbox for table ("" means
// DefaultTable): the outbox table, its dead-letter table and the trigger
// that notifies relays. Run it with Migrate, or add it to your own
// migrations. A schema named in table is created if missing. It is idempotent and takes an advisory lock, so it is safe
// to run at every start, from many processes at once. The error wraps
// hopper.ErrInvalidConfig when table is not a valid name (see NamesOf).
func Schema(table string) (string, error) {
	n, err := NamesOf(table)
	if err != nil {
		return "", err
	}
	schema := ""
	if i := strings.LastIndexByte(n.Table, '.'); i > 0 {
		schema = "CREATE SCHEMA IF NOT EXISTS " + n.Table[:i] + ";\n"
	}
	return strings.NewReplacer(
		"{{schema}}", schema,
		"{{table}}", n.Table,
		"{{dead}}", n.Dead,
		"{{function}}", n.Function,
		"{{trigger}}", `"`+n.Trigger+`"`,
		"{{triggername}}", n.Trigger,
		"{{channel}}", n.Channel,
	).Replace(schemaSQL), nil
}

// Migrate runs Schema(table) on db in one statement, which PostgreSQL runs
// as one transaction (or inside db's, when db is a transaction). db is a
// *sql.DB, *sql.Conn or *sql.Tx on PostgreSQL with any driver, or a pgx
// pool, connection or transaction adapted by pgxoutbox.Tx. A db with
// nothing to run statements on (nil, a nil *sql.DB, pgxoutbox.Tx of a nil
// pool...) is refused with an error wrapping hopper.ErrInvalidConfig that
// says what was nil.
func Migrate(ctx context.Context, db Execer, table string) error {
	if err := checkExecer("db", db, "pass the database to create the outbox in: a *sql.DB, or pgxoutbox.Tx(pool) for a *pgxpool.Pool"); err != nil {
		return err
	}
	sql, err := Schema(table)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, sql); err != nil {
		return fmt.Errorf("outbox: migrate: %w", err)
	}
	return nil
}
