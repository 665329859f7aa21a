// The hub's tables. One DDL for both databases: TEXT ids, BIGINT epoch-ms timestamps, INTEGER 0/1
// booleans, JSON as TEXT. Statements are idempotent so every replica may run them on start.

import type { Db, Queryable } from './types.ts'

const TABLES = [
  `CREATE TABLE IF NOT EXISTS accounts (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, created_at BIGINT NOT NULL, revoked_at BIGINT)`,
  `CREATE TABLE IF NOT EXISTS key_accounts (
    key_id TEXT NOT NULL REFERENCES api_keys(id), account_id TEXT NOT NULL REFERENCES accounts(id),
    PRIMARY KEY (key_id, account_id))`,
  `CREATE TABLE IF NOT EXISTS services (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS status_pages (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, created_at BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS status_page_services (
    status_page_id TEXT NOT NULL, service_id TEXT NOT NULL, PRIMARY KEY (status_page_id, service_id))`,
  `CREATE TABLE IF NOT EXISTS incidents (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, severity TEXT NOT NULL,
    last_update_status TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
    duration BIGINT, update_count INTEGER NOT NULL DEFAULT 0)`,
  `CREATE INDEX IF NOT EXISTS incidents_page ON incidents (account_id, created_at DESC, id DESC)`,
  `CREATE TABLE IF NOT EXISTS incident_services (
    incident_id TEXT NOT NULL, service_id TEXT NOT NULL, PRIMARY KEY (incident_id, service_id))`,
  `CREATE TABLE IF NOT EXISTS incident_updates (
    id TEXT PRIMARY KEY, incident_id TEXT NOT NULL, position INTEGER NOT NULL, description TEXT NOT NULL,
    status TEXT NOT NULL, public_date BIGINT NOT NULL, created_at BIGINT NOT NULL,
    notify_subscribers INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS incident_updates_by_incident ON incident_updates (incident_id, position)`,
  `CREATE TABLE IF NOT EXISTS check_sessions (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, status TEXT NOT NULL, created_at BIGINT NOT NULL,
    finished_at BIGINT)`,
  `CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, check_id TEXT NOT NULL, check_type TEXT NOT NULL,
    runtime_id TEXT, location TEXT NOT NULL, definition TEXT NOT NULL, session_id TEXT,
    test_session INTEGER NOT NULL, state TEXT NOT NULL, due_at BIGINT NOT NULL, available_at BIGINT NOT NULL,
    claimed_by TEXT, lease_until BIGINT, claims INTEGER NOT NULL DEFAULT 0, finished_at BIGINT)`,
  `CREATE INDEX IF NOT EXISTS jobs_claimable ON jobs (account_id, location, state, available_at)`,
  `CREATE INDEX IF NOT EXISTS jobs_by_session ON jobs (session_id)`,
  `CREATE INDEX IF NOT EXISTS jobs_waiting ON jobs (state, available_at)`,
  `CREATE INDEX IF NOT EXISTS jobs_leased ON jobs (state, lease_until)`,
  `CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (finished_at)`,
  `CREATE TABLE IF NOT EXISTS results (
    account_id TEXT NOT NULL, id TEXT NOT NULL, check_id TEXT NOT NULL, check_type TEXT NOT NULL,
    status TEXT NOT NULL, started_at BIGINT NOT NULL, session_id TEXT, agent_id TEXT, body TEXT NOT NULL,
    received_at BIGINT NOT NULL, placeholder INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (account_id, id))`,
  `CREATE INDEX IF NOT EXISTS results_by_check ON results (account_id, check_id, started_at DESC, id DESC)`,
  `CREATE TABLE IF NOT EXISTS agents (
    id TEXT NOT NULL, account_id TEXT NOT NULL, flavor TEXT NOT NULL, version TEXT NOT NULL,
    location TEXT NOT NULL, check_types TEXT NOT NULL, runtimes TEXT NOT NULL, registered_at BIGINT NOT NULL,
    last_seen BIGINT NOT NULL, PRIMARY KEY (account_id, id))`,
  `CREATE TABLE IF NOT EXISTS checks (
    account_id TEXT NOT NULL, logical_id TEXT NOT NULL, type TEXT NOT NULL, definition TEXT NOT NULL,
    frequency_ms BIGINT NOT NULL, locations TEXT NOT NULL, activated INTEGER NOT NULL, next_due_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL, PRIMARY KEY (account_id, logical_id))`,
  `CREATE INDEX IF NOT EXISTS checks_due ON checks (next_due_at)`,
  `CREATE TABLE IF NOT EXISTS subscribers (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, url TEXT NOT NULL, created_at BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, subscriber_id TEXT NOT NULL, url TEXT NOT NULL,
    payload TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_at BIGINT NOT NULL, delivered_at BIGINT,
    last_error TEXT, created_at BIGINT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (delivered_at, next_attempt_at)`,
  `CREATE TABLE IF NOT EXISTS artifacts (
    account_id TEXT NOT NULL, run_id TEXT NOT NULL, name TEXT NOT NULL, size BIGINT NOT NULL,
    sha256 TEXT NOT NULL, path TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (account_id, run_id, name))`,
  // Idempotency-Key answers (store/idempotency.ts); status and body are NULL only inside the
  // transaction that claims the key.
  `CREATE TABLE IF NOT EXISTS idempotency_keys (
    account_id TEXT NOT NULL, route TEXT NOT NULL, idem_key TEXT NOT NULL, request_hash TEXT NOT NULL,
    status INTEGER, body TEXT, created_at BIGINT NOT NULL, PRIMARY KEY (account_id, route, idem_key))`,
  `CREATE INDEX IF NOT EXISTS idempotency_keys_age ON idempotency_keys (created_at)`,
]

interface AddedColumn {
  table: string
  column: string
  definition: string
  /** Run once, right after the column is added to a table that already had rows. */
  backfill?: string
}

// Columns that came after their table: CREATE TABLE IF NOT EXISTS leaves an existing table as it
// was, so each is added where it is missing.
const ADDED_COLUMNS: readonly AddedColumn[] = [
  {
    // 1: the sweep's JOB_EXPIRED stand-in, which the run's real result may replace once.
    table: 'results',
    column: 'placeholder',
    definition: 'INTEGER NOT NULL DEFAULT 0',
    // Before the column, a sweep's result was the only one recorded without an agent for an expired job.
    backfill: `UPDATE results SET placeholder = 1 WHERE agent_id IS NULL AND status = 'failed' AND EXISTS
      (SELECT 1 FROM jobs j WHERE j.account_id = results.account_id AND j.id = results.id AND j.state = 'expired')`,
  },
]

// Any fixed number: replicas starting together take turns creating tables instead of colliding.
const MIGRATION_LOCK = 748_311

async function hasColumn(db: Db, tx: Queryable, table: string, column: string): Promise<boolean> {
  const rows =
    db.dialect === 'postgres'
      ? await tx.query(
          `SELECT 1 AS found FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2`,
          [table, column],
        )
      : await tx.query('SELECT 1 AS found FROM pragma_table_info($1) WHERE name = $2', [table, column])
  return rows.length > 0
}

export async function migrate(db: Db): Promise<void> {
  // The lock is waited for without a timeout: a replica queueing behind another's long migration
  // starts when that one is done instead of failing after HUB_DATABASE_TIMEOUT_SECONDS.
  await db.transaction(
    async (tx) => {
      for (const statement of TABLES) await tx.query(statement)
      for (const added of ADDED_COLUMNS) {
        if (await hasColumn(db, tx, added.table, added.column)) continue
        await tx.query(`ALTER TABLE ${added.table} ADD COLUMN ${added.column} ${added.definition}`)
        if (added.backfill !== undefined) await tx.query(added.backfill)
      }
    },
    { advisoryLock: MIGRATION_LOCK },
  )
}
