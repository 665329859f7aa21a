// A hub database from before results had the `placeholder` column: the hub adds the column on start
// and marks the JOB_EXPIRED results its sweep had recorded, so a late real result still replaces them;
// real results are not marked. SQLite and PostgreSQL.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgres } from '../../src/hub/db/postgres.ts'
import { openSqlite } from '../../src/hub/db/sqlite.ts'
import type { Db } from '../../src/hub/db/types.ts'
import type { IncomingResult } from '../../src/hub/store/jobs.ts'
import { type HubStore, openStore } from '../../src/hub/store/store.ts'
import { startPostgres, type TestPostgres } from './helpers/postgres.ts'

const timings = { leaseMs: 300_000, expireAfterMs: 360_000 }

function realResult(id: string, checkId: string, startedAt: number): IncomingResult {
  return {
    id,
    checkId,
    checkType: 'URL',
    name: checkId,
    status: 'passed',
    startedAt: new Date(startedAt).toISOString(),
    durationMs: 5,
    location: 'old',
    attempt: 1,
    assertions: [],
    artifacts: [],
  }
}

let postgres: TestPostgres | undefined
const dirs: string[] = []
beforeAll(async () => {
  postgres = await startPostgres()
}, 600_000)
afterAll(async () => {
  await postgres?.stop()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

interface OldDatabase {
  databaseUrl?: string
  dataDir: string
  /** The database itself, past the store. */
  raw(): Db
}

const backends: Array<{ name: string; open: () => Promise<OldDatabase> }> = [
  {
    name: 'SQLite',
    open: async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-migrate-'))
      dirs.push(dataDir)
      return { raw: () => openSqlite(path.join(dataDir, 'hub.sqlite')), dataDir }
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      if (postgres === undefined) throw new Error('PostgreSQL did not start')
      const databaseUrl = await postgres.createDatabase()
      return { databaseUrl, dataDir: tmpdir(), raw: () => openPostgres(databaseUrl) }
    },
  },
]

describe.each(backends)('results from before the placeholder column ($name)', ({ open }) => {
  it('the sweep’s JOB_EXPIRED results become replaceable, real results stay as they are', async () => {
    const opened = await open()
    const { dataDir } = opened
    let clock = Date.now()
    const storeAt = (): Promise<HubStore> =>
      openStore({ databaseUrl: opened.databaseUrl, dataDir, timings, now: () => clock })

    const before = await storeAt()
    const account = await before.createAccount('migrate')
    const check = { type: 'URL', logicalId: 'old-check', name: 'old check' }
    const { id: sessionId, runIds } = await before.createSession(account.id, [check, check], 'old')
    await before.registerAgent(account.id, {
      id: 'old-agent',
      flavor: 'full',
      version: '7.0.1',
      location: 'old',
      checkTypes: ['URL'],
      runtimes: [],
    })
    expect(await before.claim(account.id, 'old-agent', [{ max: 2 }])).toHaveLength(2)
    const ranAt = clock
    const [expiring, reported] = runIds as [string, string]
    // Reported without an agent id, as a result may be: it must not pass for a placeholder.
    expect(await before.recordResult(account.id, realResult(reported, 'old-check', ranAt), null)).toBe(
      'created',
    )
    clock += timings.leaseMs + timings.expireAfterMs + 1000
    expect(await before.sweep()).toBe(1)
    expect(await before.sessionStatus(account.id, sessionId)).toBe('TIMED_OUT')
    await before.close()

    // What an older hub left: the same rows, without the column.
    const raw = opened.raw()
    await raw.query('ALTER TABLE results DROP COLUMN placeholder')
    await raw.close()

    const after = await storeAt()
    expect(await after.recordResult(account.id, realResult(reported, 'old-check', ranAt), 'x')).toBe(
      'duplicate',
    )
    const late = realResult(expiring, 'old-check', ranAt)
    expect(await after.recordResult(account.id, late, 'old-agent')).toBe('replaced')
    expect(await after.recordResult(account.id, late, 'old-agent')).toBe('duplicate')
    expect(await after.sessionStatus(account.id, sessionId)).toBe('PASSED')
    const page = await after.listResults(account.id, 'old-check', 10)
    expect(page.entries).toHaveLength(2)
    expect(page.entries).toContainEqual(late)
    expect(page.entries).toContainEqual(realResult(reported, 'old-check', ranAt))
    await after.close()
    // Starting again finds the column and changes nothing.
    const again = await storeAt()
    expect((await again.listResults(account.id, 'old-check', 10)).entries).toHaveLength(2)
    await again.close()
  })
})
