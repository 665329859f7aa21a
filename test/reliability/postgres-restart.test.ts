// PostgreSQL stopped (pg_ctl stop -m immediate) and started again under load, beneath a hub running
// as a child process: result posters retrying each result with its run id, an agent long-polling for
// jobs, incident writes on the public API, and a real remote agent whose results land in its spool
// during the outage. While PostgreSQL is down the hub answers 503 naming the database and stays up;
// once it is back the hub serves again without a restart, and every result is stored exactly once.

import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { urlRequest } from '../helpers/definitions.ts'
import { type Child, spawnScript } from '../hub/helpers/child.ts'
import { startPostgres, type TestPostgres } from '../hub/helpers/postgres.ts'
import { createHubCaller, type HubAnswer, resultBody } from './hub-write-load.ts'

const root = path.resolve(import.meta.dirname, '../..')
const HUB_MAIN = path.join(root, 'test/hub/fixtures/hub-main.ts')
const AGENT_MAIN = path.join(root, 'test/agent/remote/fixtures/remote-agent-main.ts')
const LOCATION = 'pg-restart'
const POSTERS = 3
const HELD_CHECKS = 8
// Every request is bounded: a hub that hangs shows up as an 'aborted' answer, which the test refuses.
const REQUEST_LIMIT_MS = 30_000

type Answer = HubAnswer

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(what: string, condition: () => boolean | Promise<boolean>, hub: Child): Promise<void> {
  // Bounded in count (2,400 x 25 ms); a hub that exits ends the wait at once.
  for (let i = 0; i < 2400; i += 1) {
    if (await condition()) return
    if (hub.child.exitCode !== null || hub.child.signalCode !== null) {
      throw new Error(`the hub exited while waiting for ${what}:\n${hub.output().slice(-4000)}`)
    }
    await pause(25)
  }
  throw new Error(`gave up waiting for ${what}`)
}

describe('PostgreSQL restarted under load', () => {
  let postgres: TestPostgres
  let databaseUrl = ''
  let hub: Child
  let agent: Child
  let hubUrl = ''
  let key = ''
  let call: ReturnType<typeof createHubCaller>
  let target: Server
  let targetUrl = ''
  const dirs: string[] = []
  const held: Array<() => void> = []
  const hits: string[] = []

  beforeAll(async () => {
    postgres = await startPostgres()
    databaseUrl = await postgres.createDatabase()
    target = createServer((req: IncomingMessage, res: ServerResponse) => {
      hits.push(req.url ?? '')
      // Held until the test lets go, so these runs finish (and report) while PostgreSQL is down.
      if ((req.url ?? '').startsWith('/hold')) held.push(() => res.end('late'))
      else res.end('ok')
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`

    const hubDir = await mkdtemp(path.join(tmpdir(), 'outpost-pg-restart-hub-'))
    dirs.push(hubDir)
    // A short database timeout, so the frozen-server case answers within seconds.
    hub = spawnScript(
      HUB_MAIN,
      { HUB_PORT: '0', HUB_DATA_DIR: hubDir, DATABASE_URL: databaseUrl, HUB_DATABASE_TIMEOUT_SECONDS: '3' },
      root,
    )
    hubUrl = (await hub.waitFor(/listening on (http:\/\/\S+)/))[1] as string
    key = (JSON.parse(await readFile(path.join(hubDir, 'credentials.json'), 'utf8')) as { apiKey: string })
      .apiKey
    call = createHubCaller(hubUrl, key, REQUEST_LIMIT_MS)

    const agentDir = await mkdtemp(path.join(tmpdir(), 'outpost-pg-restart-agent-'))
    dirs.push(agentDir)
    agent = spawnScript(
      AGENT_MAIN,
      {
        SERVICE_API_URL: hubUrl,
        API_KEY: key,
        AGENT_LOCATION: LOCATION,
        AGENT_DATA_DIR: agentDir,
        AGENT_HEALTH_PORT: '0',
        AGENT_HEARTBEAT_PORT: '0',
        AGENT_LISTEN_HOST: '127.0.0.1',
        UPTIME_CONCURRENCY: '20',
        TEST_AGENT_ID: 'pg-restart-agent',
      },
      root,
    )
    await agent.waitFor(/AGENT READY/)
  }, 600_000)

  afterAll(async () => {
    for (const release of held.splice(0)) release()
    await agent?.kill('SIGKILL')
    await hub?.kill('SIGKILL')
    await new Promise<void>((resolve) => (target ? target.close(() => resolve()) : resolve()))
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
    await postgres?.stop()
  })

  it('the hub answers 503 naming the database, stays up, recovers alone, and stores each result once', async () => {
    // Every answer, tagged with the phase it was received in.
    const answers: Array<{ route: string; phase: string } & Answer> = []
    let phase = 'before'
    const record = (route: string, answer: Answer): Answer => {
      answers.push({ route, phase, ...answer })
      return answer
    }
    const count = (route: string, inPhase: string, ok: (status: Answer['status']) => boolean) =>
      answers.filter((a) => a.route === route && a.phase === inPhase && ok(a.status)).length
    const success = (status: Answer['status']) => status === 200 || status === 201
    const ROUTES = ['results', 'claim', 'incidents']
    let stopping = false

    // A real agent runs checks the target holds: their results are reported during the first outage.
    const checks = Array.from({ length: HELD_CHECKS }, (_, i) => ({
      type: 'URL',
      logicalId: `hold-${i}`,
      name: `hold-${i}`,
      request: urlRequest(`${targetUrl}/hold-${i}`),
      degradedResponseTime: 20_000,
      maxResponseTime: 25_000,
      timeoutSeconds: 30,
    }))
    const triggered = await call('POST', '/v2/check-sessions/trigger', { checks, location: LOCATION })
    expect(triggered.status, triggered.message).toBe(201)
    const { checkSessionId, runIds } = triggered.body as { checkSessionId: string; runIds: string[] }
    await until('the agent to start every held check', () => held.length === HELD_CHECKS, hub)

    // Result posters: each result is retried with its run id until the hub acknowledges it.
    const acknowledged = new Map<string, string[]>()
    const poster = async (n: number): Promise<void> => {
      const agentId = `load-agent-${n}`
      const mine: string[] = []
      acknowledged.set(agentId, mine)
      for (let r = 0; r < 1000 && !stopping; r += 1) {
        const id = randomUUID()
        const body = resultBody(id, `load-${n}`, agentId, LOCATION)
        // Retried even after `stopping`: a result the poster started is never given up.
        for (let attempt = 0; attempt < 2000; attempt += 1) {
          if (success(record('results', await call('POST', '/v1/agent/results', body)).status)) {
            mine.push(id)
            break
          }
          await pause(20)
        }
        await pause(10)
      }
    }
    // An agent long-polling for jobs at a location nothing is queued for.
    const claimer = async (): Promise<void> => {
      const registration = {
        agentId: 'claim-agent',
        flavor: 'uptime',
        version: '0.0.0',
        location: 'idle-location',
        checkTypes: ['URL'],
      }
      for (let i = 0; i < 2000 && !stopping; i += 1) {
        if (!success(record('register', await call('POST', '/v1/agent/register', registration)).status)) {
          await pause(20)
          continue
        }
        for (let j = 0; j < 2000 && !stopping; j += 1) {
          const claim = await call('POST', '/v1/agent/jobs/claim', { agentId: 'claim-agent', waitSeconds: 1 })
          if (!success(record('claim', claim).status)) await pause(20)
        }
      }
    }
    // Public API writes: each incident the hub answered 201 must be there afterwards.
    const created: string[] = []
    const writer = async (): Promise<void> => {
      for (let i = 0; i < 2000 && !stopping; i += 1) {
        const answer = record(
          'incidents',
          await call('POST', '/v1/status-pages/incidents', {
            name: `incident ${i}`,
            severity: 'MINOR',
            description: `written under load ${i}`,
          }),
        )
        if (answer.status === 201) created.push((answer.body as { id: string }).id)
        await pause(20)
      }
    }
    const load = Promise.all([...Array.from({ length: POSTERS }, (_, n) => poster(n)), claimer(), writer()])

    await until('load before the outage', () => ROUTES.every((r) => count(r, 'before', success) >= 2), hub)
    expect((await call('GET', '/-/readiness')).status).toBe(200)

    // Two outages: an immediate stop (backends killed, crash recovery on start), then a fast one.
    const probes: Record<string, Answer> = {}
    for (const mode of ['immediate', 'fast'] as const) {
      await postgres.pause(mode)
      phase = `${mode} outage`
      if (mode === 'immediate') {
        // The held runs finish now: the agent's results meet the outage and wait in its spool.
        for (const release of held.splice(0)) release()
        await until(
          'the agent to report into the outage',
          () => /answered 503 to POST \/v1\/agent\/results/.test(agent.output()),
          hub,
        )
      }
      await until(
        'every route to meet the outage',
        () => ROUTES.every((r) => count(r, phase, (s) => s === 503) >= 3),
        hub,
      )
      probes[`${mode} readiness`] = await call('GET', '/-/readiness')
      probes[`${mode} health`] = await call('GET', '/-/health')
      probes[`${mode} trigger`] = await call('POST', '/v2/check-sessions/trigger', {
        checks: [checks[0]],
        location: LOCATION,
      })
      probes[`${mode} read`] = await call('GET', '/v1/status-pages/incidents')

      await postgres.resume()
      phase = `after ${mode}`
      await until(
        'every route to succeed again',
        () => ROUTES.every((r) => count(r, phase, success) >= 2),
        hub,
      )
      probes[`after ${mode} readiness`] = await call('GET', '/-/readiness')
    }
    stopping = true
    await load

    // During each outage: 503 naming the database, liveness 200; after it, ready again.
    for (const mode of ['immediate', 'fast']) {
      expect(probes[`${mode} readiness`]?.status).toBe(503)
      expect(probes[`${mode} readiness`]?.message).toMatch(/database is unavailable/)
      expect(probes[`${mode} health`]?.status).toBe(200)
      expect(probes[`${mode} trigger`]?.status).toBe(503)
      expect(probes[`${mode} read`]?.status).toBe(503)
      expect(probes[`after ${mode} readiness`]?.status).toBe(200)
    }
    // Whatever was refused, at any moment, was a 503 naming the database: never a 500, never a hang.
    const refused = answers.filter((a) => !success(a.status))
    expect(refused.length).toBeGreaterThan(0)
    for (const answer of refused) {
      expect(answer.status, `${answer.route} (${answer.phase}): ${answer.message}`).toBe(503)
      expect(answer.retryAfter).toBe('2')
      expect(answer.message).toMatch(
        /^the hub's database is unavailable \(PostgreSQL: .+\); try again shortly$/,
      )
    }
    expect(hub.child.exitCode).toBeNull()
    expect(hub.child.signalCode).toBeNull()
    expect(hub.output()).not.toMatch(/uncaught|unhandled/i)

    // Every acknowledged result stored once, none other; every 201 incident stored whole.
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      for (const [agentId, ids] of acknowledged) {
        const rows = await client.query<{ id: string }>('SELECT id FROM results WHERE agent_id = $1', [
          agentId,
        ])
        expect(rows.rows.map((row) => row.id).sort()).toEqual([...ids].sort())
      }
      const incidents = (await client.query<{ id: string }>('SELECT id FROM incidents')).rows.map((r) => r.id)
      for (const id of created) expect(incidents).toContain(id)
      // The first update is written in the incident's transaction: none is left without it.
      const orphans = await client.query(
        'SELECT i.id FROM incidents i LEFT JOIN incident_updates u ON u.incident_id = i.id WHERE u.id IS NULL',
      )
      expect(orphans.rows).toEqual([])
    } finally {
      await client.end()
    }

    // The real agent's spooled results: delivered after the outage, each once, and the session done.
    let completion: Answer | undefined
    for (let i = 0; i < 10 && completion?.status !== 200; i += 1) {
      completion = await call('GET', `/v2/check-sessions/${checkSessionId}/completion?maxWaitSeconds=10`)
    }
    expect(completion?.status, completion?.message).toBe(200)
    expect(completion?.body).toBe('PASSED')
    for (const [i, runId] of runIds.entries()) {
      const results = (await call('GET', `/v1/check-results/hold-${i}`)).body as {
        entries: Array<{ id: string }>
      }
      expect(results.entries.map((e) => e.id)).toEqual([runId])
    }
    expect(agent.output()).toMatch(
      /answered 503 to POST \/v1\/agent\/results: the hub's database is unavailable/,
    )
    expect(agent.output()).toMatch(/the hub is reachable again; spooled results delivered/)
    expect(agent.child.exitCode).toBeNull()
  })

  it('a frozen PostgreSQL (SIGSTOP): requests are answered 503 after the timeout, none hangs; after SIGCONT all is well', async () => {
    const ids = Array.from({ length: 4 }, () => randomUUID())
    const post = (id: string) =>
      call('POST', '/v1/agent/results', resultBody(id, 'frozen', 'frozen-agent', LOCATION))
    await postgres.freeze()
    let answers: Answer[] = []
    try {
      answers = await Promise.all([
        ...ids.map(post),
        call('POST', '/v1/status-pages/incidents', { name: 'while frozen', severity: 'MINOR' }),
        call('GET', '/v1/status-pages/incidents'),
        call('GET', '/-/readiness'),
      ])
    } finally {
      await postgres.thaw()
    }
    for (const answer of answers) {
      expect(answer.status, answer.message).toBe(503)
      expect(answer.message).toMatch(
        /^the hub's database is unavailable \(PostgreSQL: .+\); try again shortly$/,
      )
    }
    expect(hub.child.exitCode).toBeNull()

    // Thawed: the same results posted again are stored, each once.
    for (const id of ids) {
      let answer = await post(id)
      for (let i = 0; i < 200 && answer.status === 503; i += 1) {
        await pause(50)
        answer = await post(id)
      }
      expect(answer.status, answer.message).toBe(201)
    }
    expect((await call('GET', '/-/readiness')).status).toBe(200)
    const stored = (await call('GET', '/v1/check-results/frozen?limit=100')).body as {
      entries: Array<{ id: string }>
    }
    expect(stored.entries.map((e) => e.id).sort()).toEqual([...ids].sort())
  })
})
