// The hub (`outpost hub`, embedded SQLite) SIGKILLed three times under load and started again on the
// same data dir and port (the scenario is hub-sigkill-scenario.ts, shared with the PostgreSQL run).
// On SQLite each restart opens what the kill left, -wal and -shm included, and at the end the database
// is whole and still WAL. Then a hub killed during its very first start: the next start has a key that
// works.

import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DatabaseSync, type SQLInputValue } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { type HubStore, printed, type Row, runHubSigkillScenario, spawnHub } from './hub-sigkill-scenario.ts'
import { createHubCaller } from './hub-write-load.ts'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Reads the hub's database beside the running hub (WAL lets a reader in), then lets go of it. */
function inspect<T>(file: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

/** The hub's SQLite file in its data dir. */
async function sqliteStore(hubDir: string): Promise<HubStore> {
  const dbFile = path.join(hubDir, 'hub.sqlite')
  const all = (sql: string): Row[] => inspect(dbFile, (db) => db.prepare(sql).all() as Row[])
  return {
    env: {},
    query: async (sql, params = []) =>
      inspect(dbFile, (db) => db.prepare(sql).all(...(params as SQLInputValue[])) as Row[]),
    async afterKill() {
      // The kill left the write-ahead log and its index behind: the new hub must open over them.
      expect(existsSync(`${dbFile}-wal`)).toBe(true)
      expect(existsSync(`${dbFile}-shm`)).toBe(true)
    },
    async afterRestart() {},
    async atEnd() {
      expect(all('PRAGMA integrity_check').map((r) => r.integrity_check)).toEqual(['ok'])
      expect(all('PRAGMA journal_mode').map((r) => r.journal_mode)).toEqual(['wal'])
    },
  }
}

describe('the hub SIGKILLed under load and started again', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })

  it('keeps every acknowledged write, stores retried writes once, keeps leases and sessions, and the agent rides it out', {
    timeout: 180_000,
  }, async () => {
    await runHubSigkillScenario({ name: 'SQLite', openStore: sqliteStore, cleanup })
  })

  it('a hub killed at any point of its first start starts again with a working, saved key', {
    timeout: 120_000,
  }, async () => {
    // Right after the hub listens it creates the account and saves the key; kills a few moments
    // apart land across that window. Before the fix, a kill there left an account whose key nobody
    // had: every later start printed no key, and the embedded hub refused to start.
    for (const delayMs of [0, 0, 1, 1, 2, 3, 5]) {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-hub-first-start-'))
      cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
      const hubs = [spawnHub(dataDir, 0)]
      await hubs[0]?.waitForOutput(/Server listening/, 60_000)
      await pause(delayMs)
      hubs[0]?.child.kill('SIGKILL')
      expect((await hubs[0]?.exited)?.signal).toBe('SIGKILL')

      const again = spawnHub(dataDir, 0)
      hubs.push(again)
      cleanup.push(() => {
        if (again.child.exitCode === null && again.child.signalCode === null) again.child.kill('SIGKILL')
      })
      await again.waitForOutput(/^Try: |no saved API key/m, 60_000)
      expect(again.output()).not.toMatch(/no saved API key/)
      const { url, key } = printed(again)
      const saved = JSON.parse(await readFile(path.join(dataDir, 'credentials.json'), 'utf8'))
      expect(saved.apiKey).toBe(key)
      const answer = await createHubCaller(url, key)('GET', '/v1/status-pages/incidents')
      expect(answer.status, `kill ${delayMs} ms after listening: ${answer.message}`).toBe(200)
      again.child.kill('SIGKILL')
      await again.exited
      for (const hub of hubs) expect(hub.output()).not.toMatch(/uncaught|unhandled/i)
    }
  })
})
