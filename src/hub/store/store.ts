// The hub's store: one interface over SQLite (embedded default) and PostgreSQL (DATABASE_URL), the
// same SQL through either driver, so the conformance suite checks both with the same tests.

import path from 'node:path'
import { migrate } from '../db/migrate.ts'
import { openPostgres } from '../db/postgres.ts'
import { openSqlite } from '../db/sqlite.ts'
import type { Db, Dialect } from '../db/types.ts'
import { type AccountsStore, createAccountsStore } from './accounts.ts'
import { type ChecksStore, createChecksStore } from './checks.ts'
import { createIncidentsStore, type IncidentsStore } from './incidents.ts'
import { createJobsStore, type JobsStore, type JobTimings } from './jobs.ts'
import { createResultsStore, type ResultsStore } from './results.ts'
import { createWebhooksStore, type WebhooksStore } from './webhooks.ts'

export interface HubStore
  extends AccountsStore,
    IncidentsStore,
    JobsStore,
    ResultsStore,
    ChecksStore,
    WebhooksStore {
  readonly dialect: Dialect
  /**
   * Resolves when the database can serve requests (readiness). PostgreSQL: it answers a trivial
   * query. SQLite: the write lock can be taken (BEGIN IMMEDIATE, an empty commit), waited for as a
   * write waits; a full disk is not seen until a write needs space.
   */
  ping(): Promise<void>
  close(): Promise<void>
}

export interface StoreOptions {
  /** postgres://... selects PostgreSQL; otherwise SQLite at `<dataDir>/hub.sqlite`. */
  databaseUrl?: string
  /** PostgreSQL: connection and statement timeout; default 30 s. */
  databaseTimeoutMs?: number
  /** SQLite: how long a write waits for a lock another process holds before it fails 503; default 5 s. */
  sqliteLockWaitMs?: number
  dataDir: string
  timings: JobTimings
  now?: () => number
}

export async function openStore(options: StoreOptions): Promise<HubStore> {
  const db: Db = options.databaseUrl
    ? openPostgres(options.databaseUrl, { timeoutMs: options.databaseTimeoutMs })
    : openSqlite(path.join(options.dataDir, 'hub.sqlite'), { lockWaitMs: options.sqliteLockWaitMs })
  try {
    await migrate(db)
  } catch (error) {
    await db.close().catch(() => undefined)
    throw error
  }
  const now = options.now ?? Date.now
  const accounts = createAccountsStore(db, now)
  const incidents = createIncidentsStore(db, now)
  const jobs = createJobsStore(db, now, options.timings)
  const checks = createChecksStore(db, now)
  const results = createResultsStore(db, now)
  const webhooks = createWebhooksStore(db, now)
  return {
    dialect: db.dialect,
    ...accounts,
    ...incidents,
    ...jobs,
    ...results,
    ...checks,
    ...webhooks,
    async ping() {
      // On SQLite, reads go on while another process holds the lock: only a write says whether
      // the hub can take results and incidents.
      if (db.dialect === 'sqlite') await db.transaction(async () => undefined)
      else await db.query('SELECT 1')
    },
    close: () => db.close(),
  }
}
