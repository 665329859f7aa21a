// Replicas with data dirs of their own starting together on one empty PostgreSQL database: their
// first starts create one "default" account between them (the one whose start saved credentials),
// not one each.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { credentialsFile, ensureCredentials } from '../../src/hub/bootstrap.ts'
import { type Hub, startHub } from '../../src/hub/hub.ts'
import { postgresForThisFile } from './helpers/postgres.ts'
import { testHubConfig } from './helpers/test-hub.ts'

const postgres = postgresForThisFile()
const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function startReplica(databaseUrl: string): Promise<{ hub: Hub; dataDir: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-first-replica-'))
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
  const hub = await startHub({
    config: testHubConfig(dataDir, { databaseUrl }),
    sweepIntervalMs: 3_600_000,
    scheduleIntervalMs: 3_600_000,
    webhookIntervalMs: 3_600_000,
  })
  cleanup.push(() => hub.close())
  return { hub, dataDir }
}

it('two replicas starting together on an empty database create one account between them', {
  timeout: 120_000,
}, async () => {
  // A few rounds: one lucky interleaving must not pass for a fix.
  for (let round = 0; round < 3; round++) {
    const databaseUrl = await postgres.databaseUrl()
    const replicas = await Promise.all([startReplica(databaseUrl), startReplica(databaseUrl)])
    const answers = await Promise.all(
      replicas.map(({ hub, dataDir }) => ensureCredentials(hub.store, dataDir)),
    )

    const created = answers.filter((answer) => answer?.created === true)
    expect(
      created,
      `round ${round}: created ${JSON.stringify(answers.map((answer) => answer?.created))}`,
    ).toHaveLength(1)
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(1)
    const [store] = replicas.map((replica) => replica.hub.store)
    expect(await store?.countAccounts()).toBe(1)
    // The key saved is the one the database knows; the other replica saved none.
    const winner = replicas[answers.findIndex((answer) => answer?.created === true)]
    const saved = JSON.parse(await readFile(credentialsFile(winner?.dataDir as string), 'utf8')) as {
      accountId: string
      apiKey: string
    }
    expect((await store?.authenticate(saved.apiKey))?.accountIds).toEqual([saved.accountId])
    const loser = replicas.find((replica) => replica !== winner)
    await expect(readFile(credentialsFile(loser?.dataDir as string))).rejects.toThrow(/ENOENT/)
    for (const step of cleanup.splice(0).reverse()) await step()
  }
})
