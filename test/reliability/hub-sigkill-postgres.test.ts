// The hub on PostgreSQL (DATABASE_URL) SIGKILLed three times under load and started again on the same
// data dir and port: the scenario of hub-sigkill.test.ts (hub-sigkill-scenario.ts), read back from
// PostgreSQL. Here PostgreSQL itself stays up; what the kill leaves there is the dead hub's
// connections: after each restart none opened before the kill is left, and the database holds at most
// one hub's pool, so killed hubs leak none and restarts never fill the server.

import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { postgresForThisFile } from '../hub/helpers/postgres.ts'
import { type HubStore, runHubSigkillScenario } from './hub-sigkill-scenario.ts'

const postgres = postgresForThisFile()
/** The hub's pool size (src/hub/db/postgres.ts): one live hub holds at most this many connections. */
const HUB_POOL_MAX = 10

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A fresh database for the hub; each query is a connection of its own, closed after it. */
async function postgresStore(): Promise<HubStore> {
  const databaseUrl = await postgres.databaseUrl()
  const query = async (sql: string, params: string[] = []) => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      let n = 0
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows
    } finally {
      await client.end()
    }
  }
  /**
   * Connections to the hub's database, this query's own left out: all of them, and those opened
   * before `before` (a PostgreSQL timestamp), which only a killed hub can have opened.
   */
  const connections = async (before: string): Promise<{ all: number; old: number }> => {
    const [row] = await query(
      `SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE backend_start < ?::timestamptz) AS old
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      [before],
    )
    return { all: Number(row?.n), old: Number(row?.old) }
  }
  const now = async (): Promise<string> => String((await query('SELECT now()::text AS t'))[0]?.t)
  let killedAt = ''
  /** Per check: the killed hubs' connections first seen and at last, and all connections at last. */
  const counts: string[] = []
  const noLeftovers = async (when: string): Promise<void> => {
    // The dead hub's backends end when they read its closed sockets; bounded in count.
    const firstSeen = await connections(killedAt)
    let seen = firstSeen
    for (let i = 0; i < 200 && (seen.old > 0 || seen.all > HUB_POOL_MAX); i += 1) {
      await pause(50)
      seen = await connections(killedAt)
    }
    counts.push(`${firstSeen.old}->${seen.old} (${seen.all} in all)`)
    expect(seen.old, `connections of killed hubs ${when}`).toBe(0)
    expect(seen.all, `connections to the hub's database ${when}`).toBeLessThanOrEqual(HUB_POOL_MAX)
  }
  return {
    env: { DATABASE_URL: databaseUrl },
    query,
    async afterKill() {
      // Every connection opened until now is the dead hub's (each query here closes its own).
      killedAt = await now()
    },
    afterRestart: () => noLeftovers('after a restart'),
    async atEnd() {
      await noLeftovers('at the end')
      console.log(
        `killed hubs' connections after each restart and at the end, first seen -> at last: ${counts.join(', ')}`,
      )
    },
  }
}

describe('the hub on PostgreSQL SIGKILLed under load and started again', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })

  it('keeps every acknowledged write, stores retried writes once, keeps leases and sessions, leaks no connections, and the agent rides it out', {
    timeout: 180_000,
  }, async () => {
    await runHubSigkillScenario({ name: 'PostgreSQL', openStore: postgresStore, cleanup })
  })
})
