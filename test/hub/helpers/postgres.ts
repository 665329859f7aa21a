// A real PostgreSQL for tests: scripts/postgres-test-server installs (if needed) and starts a private
// cluster on a loopback port; each suite gets a database of its own in it.

import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'

const run = promisify(execFile)
const SCRIPT = path.resolve(import.meta.dirname, '../../../scripts/postgres-test-server')

export interface TestPostgres {
  url: string
  /** A fresh, empty database in the cluster. */
  createDatabase(): Promise<string>
  /** Stops the server only (pg_ctl stop -m mode): data and port are kept for resume(). */
  pause(mode?: 'fast' | 'immediate'): Promise<void>
  /** Starts a paused server again on the same port with the same data. */
  resume(): Promise<void>
  /** SIGSTOP the server and its backends: connections are accepted and never answered. */
  freeze(): Promise<void>
  /** SIGCONT after freeze(). */
  thaw(): Promise<void>
  stop(): Promise<void>
}

export async function startPostgres(): Promise<TestPostgres> {
  const { stdout } = await run(SCRIPT, ['start'], { timeout: 600_000 })
  const dir = /^PGTEST_DIR=(.+)$/m.exec(stdout)?.[1]
  const url = /^DATABASE_URL=(.+)$/m.exec(stdout)?.[1]
  if (dir === undefined || url === undefined)
    throw new Error(`postgres-test-server printed no DATABASE_URL:\n${stdout}`)
  return {
    url,
    async createDatabase() {
      const name = `hub_${randomBytes(6).toString('hex')}`
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${name}`)
      } finally {
        await client.end()
      }
      return url.replace(/\/[^/]*$/, `/${name}`)
    },
    async pause(mode = 'fast') {
      await run(SCRIPT, ['pause', dir, mode], { timeout: 120_000 })
    },
    async resume() {
      await run(SCRIPT, ['resume', dir], { timeout: 120_000 })
    },
    async freeze() {
      await run(SCRIPT, ['freeze', dir], { timeout: 60_000 })
    },
    async thaw() {
      await run(SCRIPT, ['thaw', dir], { timeout: 60_000 })
    },
    async stop() {
      await run(SCRIPT, ['stop', dir], { timeout: 120_000 })
    },
  }
}

/**
 * A cluster for the test file that calls this (at its top level): started before its suites, stopped
 * after them. Each databaseUrl() is a fresh, empty database in it.
 */
export function postgresForThisFile(): { databaseUrl(): Promise<string> } {
  let postgres: TestPostgres | undefined
  beforeAll(async () => {
    postgres = await startPostgres()
  }, 600_000)
  afterAll(async () => {
    await postgres?.stop()
  })
  return {
    databaseUrl: async () => {
      if (postgres === undefined) throw new Error('PostgreSQL did not start')
      return postgres.createDatabase()
    },
  }
}
