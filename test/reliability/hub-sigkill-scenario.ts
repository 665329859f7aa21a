// The hub-SIGKILL scenario, run on each store the hub has (hub-sigkill.test.ts: embedded SQLite;
// hub-sigkill-postgres.test.ts: PostgreSQL at DATABASE_URL). `outpost hub` is SIGKILLed three times
// under load and started again on the same data dir and port: once while a real remote agent holds
// claimed jobs of two check sessions, once while that agent's results wait in its spool, once in the
// middle of a burst of result posts. After each restart the hub keeps its API key and is ready; every
// write it acknowledged before a kill is in its database; writes whose answer the kill cut off,
// retried by their clients, are stored once; the leases survive, the sessions end with the status
// their checks earned, and the agent stays up, logging each outage in a few lines. What only one
// store has (SQLite's -wal and -shm files, PostgreSQL's connections) is checked by its HubStore.

import { randomUUID } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect } from 'vitest'
import { type AgentProcess, spawnAgent } from '../helpers/agent-process.ts'
import { urlCheck } from '../helpers/definitions.ts'
import { createHubCaller, type HubAnswer, startWriteLoad } from './hub-write-load.ts'

const LOCATION = 'hub-sigkill'
/** Session A: every check passes. Session B: one check answers 500, so the session fails. */
const SESSION_A = ['a-0', 'a-1', 'a-2']
const SESSION_B = ['b-0', 'b-bad']
/** Session C, triggered after the last restart. */
const SESSION_C = ['c-0']
const BURST = 40
/** The burst's answer after which the hub is killed: the rest are cut off mid-flight. */
const KILL_AFTER_ACKS = 8

export type Row = Record<string, unknown>

/** The hub's database as the scenario sees it, beside the running hub. */
export interface HubStore {
  /** What `outpost hub` needs in its environment for this store (its data dir and port aside). */
  env: Record<string, string>
  /** The rows of a query with `?` placeholders; numbers may come back as strings. */
  query(sql: string, params?: string[]): Promise<Row[]>
  /** Checks of what a kill left behind, before the next start. */
  afterKill(): Promise<void>
  /** Checks once a restarted hub is ready. */
  afterRestart(): Promise<void>
  /** Checks of the whole database once the load is over. */
  atEnd(): Promise<void>
}

export interface ScenarioOptions {
  /** Names the store in the summary line. */
  name: string
  /** The store, for a hub whose data dir is `hubDir`. */
  openStore(hubDir: string): Promise<HubStore>
  /** Teardown steps, run in reverse by the test file after the test. */
  cleanup: Array<() => Promise<unknown> | unknown>
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Checks probe paths here; held paths are answered only when the test lets go. */
async function startTarget() {
  const hits = new Map<string, number>()
  const held: Array<() => void> = []
  let holding = true
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1)
    hits.set(name, (hits.get(name) ?? 0) + 1)
    const answer = () => (name.endsWith('-bad') ? res.writeHead(500).end('failing') : res.end('ok'))
    if (holding) held.push(answer)
    else answer()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (name: string) => hits.get(name) ?? 0,
    held: () => held.length,
    release() {
      holding = false
      for (const answer of held.splice(0)) answer()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** `outpost hub` in `dataDir`, as an operator starts it; `env` picks its store. */
export function spawnHub(dataDir: string, port: number, env: Record<string, string> = {}): AgentProcess {
  return spawnAgent(['hub'], { ...env, HUB_PORT: String(port), HUB_HOST: '127.0.0.1', HUB_DATA_DIR: dataDir })
}

/** The base URL and API key a started hub printed. */
export function printed(hub: AgentProcess): { url: string; key: string } {
  const url = /listening on (http:\/\/\S+)/.exec(hub.output())?.[1]
  const key = /^API key: (\S+)$/m.exec(hub.output())?.[1]
  if (url === undefined || key === undefined)
    throw new Error(`the hub printed no URL or key:\n${hub.output()}`)
  return { url, key }
}

interface JobRow {
  id: string
  state: string
  claimed_by: string | null
  lease_until: number | null
}

const ids = (rows: Row[], column = 'id'): Set<string> => new Set(rows.map((row) => String(row[column])))
const count = async (store: HubStore, sql: string): Promise<number> => Number((await store.query(sql))[0]?.n)

export async function runHubSigkillScenario(options: ScenarioOptions): Promise<void> {
  const { cleanup } = options
  const hubDir = await mkdtemp(path.join(tmpdir(), 'outpost-hub-sigkill-hub-'))
  const agentDir = await mkdtemp(path.join(tmpdir(), 'outpost-hub-sigkill-agent-'))
  cleanup.push(() => rm(hubDir, { recursive: true, force: true }))
  cleanup.push(() => rm(agentDir, { recursive: true, force: true }))
  const store = await options.openStore(hubDir)
  const target = await startTarget()
  cleanup.push(() => target.close())

  const hubs: AgentProcess[] = []
  let generation = 0
  const current = (): AgentProcess => hubs[hubs.length - 1] as AgentProcess
  const startHubProcess = async (port: number): Promise<{ url: string; key: string }> => {
    const hub = spawnHub(hubDir, port, store.env)
    hubs.push(hub)
    cleanup.push(() => {
      if (hub.child.exitCode === null && hub.child.signalCode === null) hub.child.kill('SIGKILL')
    })
    await hub.waitForOutput(/^Try: /m, 60_000)
    return printed(hub)
  }
  const first = await startHubProcess(0)
  const port = Number(new URL(first.url).port)
  const key = first.key
  const credentials = await readFile(path.join(hubDir, 'credentials.json'), 'utf8')
  expect(JSON.parse(credentials).apiKey).toBe(key)
  const call = createHubCaller(first.url, key)

  const agent = spawnAgent(['agent'], {
    SERVICE_API_URL: first.url,
    API_KEY: key,
    AGENT_LOCATION: LOCATION,
    AGENT_DATA_DIR: agentDir,
    AGENT_FLAVOR: 'uptime',
    AGENT_HEALTH_PORT: '0',
    AGENT_LISTEN_HOST: '127.0.0.1',
    EXTERNAL_OBSERVABILITY: 'off',
  })
  cleanup.push(() => {
    if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL')
  })
  await agent.waitForOutput(/registered with the hub/, 60_000)

  // Bounded in count; a dead agent, or a hub that died on its own, ends the wait at once.
  const until = async (what: string, condition: () => boolean | Promise<boolean>): Promise<void> => {
    for (let i = 0; i < 1200; i += 1) {
      if (await condition()) return
      if (agent.child.exitCode !== null || agent.child.signalCode !== null) {
        throw new Error(`the agent exited while waiting for ${what}:\n${agent.output().slice(-3000)}`)
      }
      const hub = current()
      if (
        hub.child.exitCode !== null ||
        (hub.child.signalCode !== null && hub.child.signalCode !== 'SIGKILL')
      ) {
        throw new Error(`the hub exited while waiting for ${what}:\n${hub.output().slice(-3000)}`)
      }
      await pause(50)
    }
    throw new Error(`gave up waiting for ${what}`)
  }
  const ackedIn = (gen: number) => [...load.results.values()].filter((r) => r.ackedIn === gen).length

  /** SIGKILL, as the OOM killer or a power-cut container would: no handler runs. */
  const sigkill = async (): Promise<void> => {
    const hub = current()
    if (hub.child.exitCode === null && hub.child.signalCode === null) hub.child.kill('SIGKILL')
    expect((await hub.exited).signal).toBe('SIGKILL')
    generation += 1
  }
  /** What a restart must show: same port and key, ready, everything acknowledged before still there. */
  const restart = async (): Promise<void> => {
    await store.afterKill()
    const again = await startHubProcess(port)
    expect(again.url).toBe(first.url)
    expect(again.key).toBe(key)
    expect(current().output()).toMatch(/Kept in .*credentials\.json/)
    expect(await readFile(path.join(hubDir, 'credentials.json'), 'utf8')).toBe(credentials)
    const readiness = await call('GET', '/-/readiness')
    expect(readiness.status, readiness.message).toBe(200)
    const acknowledged = [...load.results].filter(([, r]) => r.ackedIn < generation).map(([id]) => id)
    const incidents = load.incidents.filter((i) => i.ackedIn < generation)
    const updates = load.incidents.filter((i) => i.updateAckedIn < generation)
    const storedResults = ids(await store.query('SELECT id FROM results'))
    const storedIncidents = ids(await store.query('SELECT id FROM incidents'))
    const storedUpdates = new Set(
      (await store.query('SELECT incident_id, description FROM incident_updates')).map(
        (row) => `${row.incident_id} ${row.description}`,
      ),
    )
    expect(acknowledged.filter((id) => !storedResults.has(id))).toEqual([])
    expect(incidents.filter((i) => !storedIncidents.has(i.id))).toEqual([])
    expect(updates.filter((i) => !storedUpdates.has(`${i.id} second update of ${i.token}`))).toEqual([])
    await store.afterRestart()
  }

  // Load: result posters and an incident writer, for the whole test.
  const load = startWriteLoad({ url: first.url, key, generation: () => generation, posters: 3 })
  cleanup.push(() => load.halt())
  await until('load on the first hub', () => ackedIn(0) >= 10 && load.incidents.length >= 2)

  // Two sessions the agent claims and holds: their target answers only when the test lets go.
  const trigger = async (names: string[]) => {
    const checks = names.map((name) =>
      urlCheck(name, {
        request: { ...urlCheck(name).request, url: `${target.url}/${name}` },
        degradedResponseTime: 25_000,
        maxResponseTime: 30_000,
      }),
    )
    const answer = await call('POST', '/v2/check-sessions/trigger', { checks, location: LOCATION })
    expect(answer.status, answer.message).toBe(201)
    return answer.body as { checkSessionId: string; runIds: string[] }
  }
  const sessionA = await trigger(SESSION_A)
  const sessionB = await trigger(SESSION_B)
  const runIds = [...sessionA.runIds, ...sessionB.runIds]
  await until('the agent to run every session check', () => target.held() === runIds.length)
  const jobs = async (): Promise<JobRow[]> =>
    (
      await store.query(
        `SELECT id, state, claimed_by, lease_until FROM jobs WHERE id IN (${runIds.map(() => '?').join(', ')}) ORDER BY id`,
        runIds,
      )
    ).map((row) => ({
      id: String(row.id),
      state: String(row.state),
      claimed_by: row.claimed_by === null ? null : String(row.claimed_by),
      lease_until: row.lease_until === null ? null : Number(row.lease_until),
    }))
  const leases = await jobs()
  expect(leases.map((j) => j.state)).toEqual(runIds.map(() => 'claimed'))

  // Kill 1: load running, the agent holding five claimed jobs.
  await sigkill()
  await restart()
  // The leases are the ones granted before the kill: same holder, same expiry, still claimed.
  expect(await jobs()).toEqual(leases)
  const agentId = /registered with the hub at \S+ as agent (\S+)"/.exec(agent.output())?.[1]
  expect(leases.map((j) => j.claimed_by)).toEqual(runIds.map(() => agentId))
  // And honours them: the holder may renew one, another agent is told the job is not its own.
  const held = leases[0] as JobRow
  const renewed = await call('POST', `/v1/agent/jobs/${held.id}/lease`, { agentId })
  expect(renewed.status, renewed.message).toBe(200)
  expect((renewed.body as { leaseUntil: number }).leaseUntil).toBeGreaterThanOrEqual(held.lease_until ?? 0)
  const stranger = await call('POST', `/v1/agent/jobs/${held.id}/lease`, { agentId: 'another-agent' })
  expect(stranger.status, stranger.message).toBe(409)
  await until('load on the second hub', () => ackedIn(1) >= 10)

  // Kill 2: the checks finish while the hub is down; their results wait in the agent's spool.
  const deliveryFailures = () => agent.output().match(/result delivery failed/g)?.length ?? 0
  const failedBefore = deliveryFailures()
  await sigkill()
  target.release()
  const spool = path.join(agentDir, 'spool', 'results')
  await until(
    'the session results in the spool',
    async () => (await readdir(spool)).filter((f) => f.endsWith('.json')).length === runIds.length,
  )
  await until('the agent to meet the outage', () => deliveryFailures() > failedBefore)
  await restart()
  const completion = async (sessionId: string): Promise<HubAnswer> => {
    let answer: HubAnswer | undefined
    for (let i = 0; i < 10 && answer?.status !== 200; i += 1) {
      answer = await call('GET', `/v2/check-sessions/${sessionId}/completion?maxWaitSeconds=5`)
    }
    return answer as HubAnswer
  }
  const doneA = await completion(sessionA.checkSessionId)
  const doneB = await completion(sessionB.checkSessionId)
  expect(doneA.status, doneA.message).toBe(200)
  expect(doneA.body).toBe('PASSED')
  expect(doneB.status, doneB.message).toBe(200)
  expect(doneB.body).toBe('FAILED')
  await until('the spool to drain', async () => (await readdir(spool)).length === 0)

  // Kill 3: in the middle of a burst of result posts, at the burst's KILL_AFTER_ACKS-th answer.
  await until('load on the third hub', () => ackedIn(2) >= 10)
  const burstIds = Array.from({ length: BURST }, () => randomUUID())
  let burstAcks = 0
  let killed: Promise<void> | undefined
  const burst = Promise.all(
    burstIds.map((id) =>
      load.postResult(id, 'burst', 'burst-agent', () => {
        burstAcks += 1
        if (burstAcks === KILL_AFTER_ACKS) killed = sigkill()
      }),
    ),
  )
  await until('the kill mid-burst', () => killed !== undefined)
  await killed
  const cutOff = BURST - burstAcks
  await restart()
  await burst
  await until('load on the fourth hub', () => ackedIn(3) >= 10 && load.incidents.some((i) => i.ackedIn === 3))
  // The agent takes jobs from the hub that came back last.
  const sessionC = await trigger(SESSION_C)
  const doneC = await completion(sessionC.checkSessionId)
  expect(doneC.status, doneC.message).toBe(200)
  expect(doneC.body).toBe('PASSED')
  await load.stop()

  // Nothing refused, nothing hung, nothing given up.
  expect(load.refused).toEqual([])
  expect(load.abandoned).toEqual([])
  expect(cutOff).toBeGreaterThan(0)

  // The database: each result once, the set of results exactly what was posted.
  await store.atEnd()
  const results = await store.query(
    "SELECT id, COUNT(*) AS n FROM results WHERE check_id LIKE 'load-%' OR check_id = 'burst' GROUP BY id",
  )
  expect(results.filter((r) => Number(r.n) !== 1)).toEqual([])
  expect(results.map((r) => String(r.id)).sort()).toEqual([...load.results.keys()].sort())
  for (const id of burstIds) expect(load.results.get(id)?.checkId).toBe('burst')
  // Through the API as well: each poster's check lists exactly its acknowledged results.
  for (const checkId of ['load-0', 'load-1', 'load-2', 'burst']) {
    const listed: string[] = []
    let nextId: string | null = null
    for (let page = 0; page < 1000; page += 1) {
      const answer = await call(
        'GET',
        `/v1/check-results/${checkId}?limit=100${nextId === null ? '' : `&nextId=${encodeURIComponent(nextId)}`}`,
      )
      expect(answer.status, answer.message).toBe(200)
      const body = answer.body as { entries: Array<{ id: string }>; nextId: string | null }
      listed.push(...body.entries.map((e) => e.id))
      nextId = body.nextId
      if (nextId === null) break
    }
    const expected = [...load.results].filter(([, r]) => r.checkId === checkId).map(([id]) => id)
    expect(listed.sort()).toEqual(expected.sort())
  }

  // Every incident written is there once, with its first update and its second, each once, though
  // the writer never looked before retrying: it resent each write blindly with its Idempotency-Key.
  // Each of its writes left one key with its answer, recorded in the write's own transaction.
  const keys = await count(store, 'SELECT COUNT(*) AS n FROM idempotency_keys')
  const answeredKeys = await count(
    store,
    'SELECT COUNT(*) AS n FROM idempotency_keys WHERE status IS NOT NULL',
  )
  expect(keys).toBe(2 * load.incidents.length)
  expect(answeredKeys).toBe(keys)
  const incidents = await store.query('SELECT id, name FROM incidents')
  const updates = await store.query(
    'SELECT incident_id, description FROM incident_updates ORDER BY incident_id, position',
  )
  const byName = new Map<string, string[]>()
  for (const incident of incidents) {
    const name = String(incident.name)
    byName.set(name, [...(byName.get(name) ?? []), String(incident.id)])
  }
  expect(incidents.length).toBe(load.incidents.length)
  for (const written of load.incidents) {
    expect(byName.get(written.token)).toEqual([written.id])
    expect(updates.filter((u) => u.incident_id === written.id).map((u) => u.description)).toEqual([
      `first update of ${written.token}`,
      `second update of ${written.token}`,
    ])
  }

  // The agent's results: each session run stored once, none run twice (delivered from the spool).
  const allRuns = [...runIds, ...sessionC.runIds]
  for (const [i, name] of [...SESSION_A, ...SESSION_B, ...SESSION_C].entries()) {
    const answer = await call('GET', `/v1/check-results/${name}?limit=100`)
    expect((answer.body as { entries: Array<{ id: string }> }).entries.map((e) => e.id)).toEqual([allRuns[i]])
    expect(target.hits(name), `${name}: run once`).toBe(1)
  }

  // The agent stayed up, said the hub was gone and back, and did not log every retry.
  expect(agent.child.exitCode).toBeNull()
  expect(agent.child.signalCode).toBeNull()
  const output = agent.output()
  const outageLines = output
    .split('\n')
    .filter((line) => /job claim failed|result delivery failed|lease renewal failed/.test(line))
  const retriesByClients = [...load.results.values()].reduce((sum, r) => sum + r.lostAnswers, 0)
  console.log(
    `hub (${options.name}) SIGKILL x3: ${load.results.size} results acknowledged (${[...load.results.values()].filter((r) => r.status === 200).length} stored by an attempt whose answer was lost), ` +
      `${retriesByClients} result posts without an answer, ${cutOff} of ${BURST} burst posts cut off, ` +
      `${load.incidents.length} incidents (${load.incidents.filter((i) => i.replayed || i.updateReplayed).length} with a write answered as a replay after a lost answer), ` +
      `${outageLines.length} agent warning lines over 3 outages`,
  )
  // One line per backoff step of each loop (claims, deliveries, renewals), a few per outage here,
  // where the clients above retried hundreds of times.
  expect(outageLines.length).toBeGreaterThanOrEqual(2)
  expect(outageLines.length).toBeLessThanOrEqual(45)
  expect(outageLines.length).toBeLessThan(retriesByClients)
  expect(output).toMatch(/the hub is reachable again/)
  expect(output).not.toContain(key)
  expect(output).not.toMatch(/uncaught exception|unhandled promise rejection/i)
  for (const hub of hubs) {
    expect(hub.output()).not.toMatch(
      /uncaught|unhandled|database disk image is malformed|database is locked|too many clients/i,
    )
  }
}
