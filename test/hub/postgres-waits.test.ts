// Waits on PostgreSQL that are not outages: a replica queueing behind another replica's migration
// starts once that one is done however long it takes (no statement timeout on the migration lock),
// and a pool whose every connection is busy answers 503 as overload, not as the database gone.

import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { DatabaseOverloadedError, DatabaseUnavailableError } from '../../src/hub/db/errors.ts'
import { openPostgres } from '../../src/hub/db/postgres.ts'
import { openStore } from '../../src/hub/store/store.ts'
import { postgresForThisFile } from './helpers/postgres.ts'

const postgres = postgresForThisFile()
const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

/** The migration's advisory lock key (src/hub/db/migrate.ts). */
const MIGRATION_LOCK = 748_311
const TIMEOUT_MS = 1_000

it('a replica waiting longer than the database timeout on another replica migrating still starts', {
  timeout: 120_000,
}, async () => {
  const databaseUrl = await postgres.databaseUrl()
  // The other replica, mid-migration: it holds the lock in an open transaction.
  const other = new pg.Client({ connectionString: databaseUrl })
  await other.connect()
  cleanup.push(() => other.end())
  await other.query('BEGIN')
  await other.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])

  let outcome: 'pending' | 'opened' | 'failed' = 'pending'
  let failure: unknown
  const opening = openStore({
    databaseUrl,
    databaseTimeoutMs: TIMEOUT_MS,
    dataDir: '/nonexistent',
    timings: { leaseMs: 300_000, expireAfterMs: 360_000 },
  }).then(
    (store) => {
      outcome = 'opened'
      cleanup.push(() => store.close())
      return store
    },
    (error: unknown) => {
      outcome = 'failed'
      failure = error
      return undefined
    },
  )
  // Bounded: the replica is seen queueing on the lock.
  let waiting = 0
  for (let i = 0; i < 200 && waiting === 0; i++) {
    const rows = await other.query(
      'SELECT count(*)::int AS n FROM pg_locks WHERE locktype = $1 AND objid = $2 AND NOT granted',
      ['advisory', MIGRATION_LOCK],
    )
    waiting = rows.rows[0].n
    if (waiting === 0) await sleep(50)
  }
  expect(waiting).toBe(1)
  // Held for three times the timeout: a timed statement would have failed the start by now.
  await sleep(3 * TIMEOUT_MS)
  expect({ outcome, failure: String(failure ?? '') }).toEqual({ outcome: 'pending', failure: '' })

  await other.query('COMMIT')
  const store = await opening
  expect(outcome).toBe('opened')
  await store?.ping()
})

it('a pool with every connection busy answers as overload, 503, not as an outage', {
  timeout: 60_000,
}, async () => {
  const db = openPostgres(await postgres.databaseUrl(), { max: 1, timeoutMs: TIMEOUT_MS })
  cleanup.push(() => db.close())
  let release = (): void => undefined
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  const holding = db.transaction(async (tx) => {
    await tx.query('SELECT 1')
    await held
  })
  const error = await db.query('SELECT 1').then(
    () => undefined,
    (e: unknown) => e,
  )
  release()
  await holding
  expect(error).toBeInstanceOf(DatabaseOverloadedError)
  expect(error).toBeInstanceOf(DatabaseUnavailableError)
  expect((error as Error).message).toBe(
    "the hub's database is overloaded (PostgreSQL: every connection of the hub was in use for the whole connection timeout); try again shortly",
  )
  // Free again: served.
  expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }])
})
