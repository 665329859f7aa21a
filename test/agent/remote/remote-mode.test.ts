// The agent in remote mode against a real hub on loopback: jobs claimed with leases, results through
// the on-disk spool, the hub stopped and restarted under a running agent, an agent restart with a
// full spool, and a refused key.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Agent, startAgent } from '../../../src/agent/agent.ts'
import type { ExecutorTable } from '../../../src/agent/executors.ts'
import { createHubClient } from '../../../src/agent/remote/hub-client.ts'
import { deployToHub, runSessionOnHub } from '../../../src/agent/remote/hub-sessions.ts'
import { createRemoteParts, HubRejectedKeyError, type RemoteParts } from '../../../src/agent/remote/index.ts'
import { createRemoteSource } from '../../../src/agent/remote/remote-source.ts'
import { createSpoolSink } from '../../../src/agent/remote/spool-sink.ts'
import { type Hub, startHub } from '../../../src/hub/hub.ts'
import type { CheckDefinition, UrlCheck } from '../../../src/model/checks.ts'
import type { CheckResult } from '../../../src/model/result.ts'
import { createScrubber } from '../../../src/secrets/scrubber.ts'
import { testAgentConfig } from '../../helpers/agent-config.ts'
import { captureLogger } from '../../helpers/capture-logger.ts'
import { urlRequest } from '../../helpers/definitions.ts'
import { testHubConfig } from '../../hub/helpers/test-hub.ts'

const FAST_BACKOFF = { baseMs: 50, maxMs: 400 }

interface Target {
  url: string
  hits: Map<string, number>
  /** Requests wait here until released (a check "in flight"). */
  hold: boolean
  release(): void
  close(): Promise<void>
}

/** The loopback server the checks probe: counts requests per path, can hold them. */
async function startTarget(): Promise<Target> {
  const hits = new Map<string, number>()
  let waiting: Array<() => void> = []
  const target = {} as Target
  const server: Server = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1)
    const answer = (): void => {
      res.end('ok')
    }
    if (target.hold) waiting.push(answer)
    else answer()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  Object.assign(target, {
    url: `http://127.0.0.1:${port}`,
    hits,
    hold: false,
    release() {
      target.hold = false
      const answers = waiting
      waiting = []
      for (const answer of answers) answer()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
  return target
}

/** A URL executor that really requests the check's URL (the probe itself is tested elsewhere). */
const executors: ExecutorTable = {
  URL: async (check, ctx) => {
    const started = Date.now()
    const response = await fetch((check as UrlCheck).request.url, { signal: ctx.signal })
    await response.text()
    return { status: response.ok ? 'passed' : 'failed', responseTimeMs: Date.now() - started, assertions: [] }
  },
}

function check(logicalId: string, target: Target): Record<string, unknown> {
  return {
    type: 'URL',
    logicalId,
    name: `remote ${logicalId}`,
    request: urlRequest(`${target.url}/${logicalId}`),
    degradedResponseTime: 5000,
    maxResponseTime: 10000,
  }
}

async function openHub(dataDir: string, port = 0): Promise<Hub> {
  return startHub({
    config: testHubConfig(dataDir, { port }),
  })
}

async function api(
  hubUrl: string,
  key: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${hubUrl}${pathname}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
}

async function until(condition: () => Promise<boolean>, what: string, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`gave up waiting for ${what}`)
}

describe('agent remote mode against a real hub', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
    cleanups.length = 0
  })

  async function setup(location: string) {
    const hubDir = await mkdtemp(path.join(tmpdir(), 'outpost-remote-hub-'))
    let hub = await openHub(hubDir)
    const account = await hub.store.createAccount('remote')
    const key = (await hub.store.createApiKey(account.id, 'agent')).key
    const target = await startTarget()
    const config = await testAgentConfig({
      SERVICE_API_URL: hub.url,
      API_KEY: key,
      AGENT_LOCATION: location,
      UPTIME_CONCURRENCY: '10',
    })
    const { log, lines } = captureLogger(createScrubber([key]))
    const state = {
      get hub() {
        return hub
      },
      async restartHub(): Promise<void> {
        hub = await openHub(hubDir, Number(new URL(config.serviceApiUrl as string).port))
      },
    }
    cleanups.push(async () => {
      await target.close()
      await hub.close().catch(() => undefined)
      await rm(hubDir, { recursive: true, force: true })
      await rm(config.dataDir, { recursive: true, force: true })
    })
    return { state, key, accountId: account.id, target, config, log, lines }
  }

  async function runAgent(
    s: Awaited<ReturnType<typeof setup>>,
  ): Promise<{ agent: Agent; parts: RemoteParts }> {
    const info = { id: `agent-${path.basename(s.config.dataDir)}`, version: '7.0.1', flavor: 'full' as const }
    let agent: Agent | undefined
    const parts = await createRemoteParts({
      config: s.config,
      log: s.log,
      scrubber: createScrubber([s.key]),
      info,
      checkTypes: ['URL'],
      waitSeconds: 1,
      backoff: FAST_BACKOFF,
      onRejectedKey: () => void agent?.stop(),
    })
    agent = await startAgent({
      config: s.config,
      log: s.log,
      scrubber: createScrubber([s.key]),
      source: parts.source,
      executors,
      info,
      sink: parts.sink,
    })
    const running = agent
    cleanups.push(async () => {
      await running.stop()
      await parts.close(100)
    })
    return { agent, parts }
  }

  it('runs a triggered session: every job once, every result once, session PASSED', async () => {
    const s = await setup('loc-remote-1')
    await runAgent(s)
    const checks = Array.from({ length: 20 }, (_, i) => check(`r1-${i}`, s.target))
    const triggered = await api(s.state.hub.url, s.key, '/v2/check-sessions/trigger', {
      checks,
      location: 'loc-remote-1',
    })
    expect(triggered.status).toBe(201)
    const { checkSessionId, runIds } = triggered.body as { checkSessionId: string; runIds: string[] }
    const completion = await api(s.state.hub.url, s.key, `/v2/check-sessions/${checkSessionId}/completion`)
    expect(completion).toEqual({ status: 200, body: 'PASSED' })
    for (let i = 0; i < 20; i += 1) {
      expect(s.target.hits.get(`/r1-${i}`)).toBe(1)
      const results = (await api(s.state.hub.url, s.key, `/v1/check-results/r1-${i}`)).body as {
        entries: Array<{ id: string }>
      }
      expect(results.entries.map((r) => r.id)).toEqual([runIds[i]])
    }
    expect(s.lines().join('\n')).not.toContain(s.key)
  })

  it('keeps results in the spool while the hub is down and delivers each exactly once when it returns', async () => {
    const s = await setup('loc-remote-2')
    const { parts } = await runAgent(s)
    s.target.hold = true
    const checks = Array.from({ length: 6 }, (_, i) => check(`r2-${i}`, s.target))
    const { runIds, checkSessionId } = (
      await api(s.state.hub.url, s.key, '/v2/check-sessions/trigger', { checks, location: 'loc-remote-2' })
    ).body as { runIds: string[]; checkSessionId: string }
    await until(async () => parts.source.held().length === 6, 'the agent to claim all six jobs')
    // The hub goes away while the checks are in flight.
    await s.state.hub.close()
    s.target.release()
    await until(async () => (await parts.sink.pending()) === 6, 'six results in the spool')
    await until(
      async () =>
        s.lines().some((l) => l.includes('result delivery failed')) &&
        s.lines().some((l) => l.includes('job claim failed')),
      'the agent to notice the hub is down',
    )
    await s.state.restartHub()
    await until(async () => (await parts.sink.pending()) === 0, 'the spool to drain')
    const completion = await api(s.state.hub.url, s.key, `/v2/check-sessions/${checkSessionId}/completion`)
    expect(completion.body).toBe('PASSED')
    for (const [i, runId] of runIds.entries()) {
      expect(s.target.hits.get(`/r2-${i}`)).toBe(1)
      const results = (await api(s.state.hub.url, s.key, `/v1/check-results/r2-${i}`)).body as {
        entries: Array<{ id: string }>
      }
      expect(results.entries.map((r) => r.id)).toEqual([runId])
    }
    // The agent claims again after the outage.
    const again = (
      await api(s.state.hub.url, s.key, '/v2/check-sessions/trigger', {
        checks: [check('r2-after', s.target)],
        location: 'loc-remote-2',
      })
    ).body as { checkSessionId: string }
    expect(
      (await api(s.state.hub.url, s.key, `/v2/check-sessions/${again.checkSessionId}/completion`)).body,
    ).toBe('PASSED')
  })

  it('an agent restarted with a full spool delivers it on start, once', async () => {
    const s = await setup('loc-remote-3')
    const { agent, parts } = await runAgent(s)
    s.target.hold = true
    const checks = Array.from({ length: 3 }, (_, i) => check(`r3-${i}`, s.target))
    const { runIds } = (
      await api(s.state.hub.url, s.key, '/v2/check-sessions/trigger', { checks, location: 'loc-remote-3' })
    ).body as { runIds: string[] }
    await until(async () => parts.source.held().length === 3, 'three claimed jobs')
    await s.state.hub.close()
    s.target.release()
    await until(async () => (await parts.sink.pending()) === 3, 'three spooled results')
    await agent.stop()
    await parts.close(100)
    expect(await parts.sink.pending()).toBe(3)

    await s.state.restartHub()
    const client = createHubClient({ baseUrl: s.config.serviceApiUrl as string, apiKey: s.key })
    const sink = await createSpoolSink({
      client,
      dataDir: s.config.dataDir,
      log: s.log,
      backoff: FAST_BACKOFF,
    })
    await until(async () => (await sink.pending()) === 0, 'the restarted spool to drain')
    await sink.close()
    await client.close()
    for (const [i, runId] of runIds.entries()) {
      const results = (await api(s.state.hub.url, s.key, `/v1/check-results/r3-${i}`)).body as {
        entries: Array<{ id: string }>
      }
      expect(results.entries.map((r) => r.id)).toEqual([runId])
    }
  })

  it('a refused key is fatal with a clear message that does not show the key', async () => {
    const s = await setup('loc-remote-4')
    const bad = 'op_this-key-is-not-valid'
    const client = createHubClient({ baseUrl: s.state.hub.url, apiKey: bad })
    const source = createRemoteSource({
      client,
      log: s.log,
      agent: {
        id: 'a4',
        version: '7.0.1',
        flavor: 'full',
        location: 'loc-remote-4',
        checkTypes: ['URL'],
        runtimes: [],
      },
      slots: { light: 1, heavy: 1 },
      backoff: FAST_BACKOFF,
    })
    const iterate = async (): Promise<void> => {
      for await (const _job of source.jobs(new AbortController().signal)) {
        // no job is expected
      }
    }
    const error = await iterate().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(HubRejectedKeyError)
    expect((error as Error).message).toMatch(/rejected the API key.*check API_KEY/)
    expect((error as Error).message).not.toContain(bad)
    await client.close()
  })

  it('a network error is transient: the source keeps trying until the hub appears', async () => {
    const s = await setup('loc-remote-5')
    const port = Number(new URL(s.state.hub.url).port)
    await s.state.hub.close()
    const client = createHubClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: s.key })
    const source = createRemoteSource({
      client,
      log: s.log,
      agent: {
        id: 'a5',
        version: '7.0.1',
        flavor: 'full',
        location: 'loc-remote-5',
        checkTypes: ['URL'],
        runtimes: [],
      },
      slots: { light: 1, heavy: 1 },
      waitSeconds: 1,
      backoff: FAST_BACKOFF,
    })
    const stop = new AbortController()
    const iterator = source.jobs(stop.signal)[Symbol.asyncIterator]()
    const first = iterator.next()
    await until(
      async () => s.lines().filter((l) => l.includes('job claim failed')).length >= 3,
      'three failed attempts',
    )
    await s.state.restartHub()
    await api(s.state.hub.url, s.key, '/v2/check-sessions/trigger', {
      checks: [check('r5', s.target)],
      location: 'loc-remote-5',
    })
    const job = await first
    expect(job.done).toBe(false)
    expect(job.value?.check.logicalId).toBe('r5')
    stop.abort()
    await client.close()
  })

  it('outpost test --hub and outpost deploy: a session through the hub, and deployed checks run on schedule', async () => {
    const s = await setup('loc-remote-6')
    await runAgent(s)
    const client = createHubClient({ baseUrl: s.state.hub.url, apiKey: s.key })
    const checks = [check('r6-a', s.target), check('r6-b', s.target)] as unknown as CheckDefinition[]
    const run = await runSessionOnHub({ client, checks, location: 'loc-remote-6' })
    expect(run.outcome).toBe('PASSED')
    expect(run.results.map((r) => r?.checkId)).toEqual(['r6-a', 'r6-b'])
    expect(run.results.every((r) => r?.sessionId === run.sessionId)).toBe(true)

    const deployed = {
      ...check('r6-scheduled', s.target),
      frequencySeconds: 60,
      privateLocations: ['loc-remote-6'],
    }
    expect(await deployToHub(client, [deployed as unknown as CheckDefinition])).toEqual({
      created: 1,
      updated: 0,
      deleted: 0,
    })
    await until(
      async () => s.target.hits.get('/r6-scheduled') === 1,
      'the deployed check to run on the agent',
    )
    await until(
      async () =>
        ((await api(s.state.hub.url, s.key, '/v1/check-results/r6-scheduled')).body as { entries: unknown[] })
          .entries.length === 1,
      'its result at the hub',
    )
    await client.close()
  })

  it('uploads artifacts kept on disk before their result and points the result at the hub', async () => {
    const s = await setup('loc-remote-7')
    const client = createHubClient({ baseUrl: s.state.hub.url, apiKey: s.key })
    const sink = await createSpoolSink({
      client,
      dataDir: s.config.dataDir,
      log: s.log,
      backoff: FAST_BACKOFF,
    })
    const runDir = path.join(s.config.dataDir, 'runs', 'run-art')
    await mkdir(runDir, { recursive: true })
    const bytes = Buffer.from('a screenshot, byte for byte')
    await writeFile(path.join(runDir, 'shot.png'), bytes)
    const result: CheckResult = {
      id: 'run-art',
      checkId: 'art-check',
      checkType: 'BROWSER',
      name: 'art',
      status: 'failed',
      startedAt: new Date().toISOString(),
      durationMs: 5,
      location: 'loc-remote-7',
      attempt: 1,
      assertions: [],
      artifacts: [
        {
          name: 'shot.png',
          kind: 'screenshot',
          size: bytes.length,
          sha256: 'x',
          location: 'runs/run-art/shot.png',
        },
      ],
      agent: { id: 'a7', version: '7.0.1', flavor: 'full' },
    }
    await sink.write(result)
    await until(async () => (await sink.pending()) === 0, 'delivery')
    await sink.close()
    await client.close()
    const stored = (await api(s.state.hub.url, s.key, '/v1/check-results/art-check')).body as {
      entries: CheckResult[]
    }
    const location = stored.entries[0]?.artifacts[0]?.location
    expect(location).toBe('/v1/artifacts/run-art/shot.png')
    const download = await fetch(`${s.state.hub.url}${location}`, {
      headers: { authorization: `Bearer ${s.key}` },
    })
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true)
  })

  it('claims no more jobs than the agent has slots for; the rest stay for other agents', async () => {
    const s = await setup('loc-remote-8')
    const client = createHubClient({ baseUrl: s.state.hub.url, apiKey: s.key })
    const source = createRemoteSource({
      client,
      log: s.log,
      agent: {
        id: 'a8',
        version: '7.0.1',
        flavor: 'full',
        location: 'loc-remote-8',
        checkTypes: ['URL'],
        runtimes: [],
      },
      slots: { light: 2, heavy: 1 },
      waitSeconds: 1,
      backoff: FAST_BACKOFF,
    })
    const checks = Array.from({ length: 5 }, (_, i) => check(`r8-${i}`, s.target))
    await api(s.state.hub.url, s.key, '/v2/check-sessions/trigger', { checks, location: 'loc-remote-8' })
    const stop = new AbortController()
    const iterator = source.jobs(stop.signal)[Symbol.asyncIterator]()
    const first = await iterator.next()
    const second = await iterator.next()
    const mine = [first.value?.check.logicalId, second.value?.check.logicalId]
    expect(new Set(mine).size).toBe(2)
    expect(source.held()).toHaveLength(2)
    await api(s.state.hub.url, s.key, '/v1/agent/register', {
      agentId: 'other',
      flavor: 'full',
      version: '7.0.1',
      location: 'loc-remote-8',
      checkTypes: ['URL'],
    })
    const rest = (
      await api(s.state.hub.url, s.key, '/v1/agent/jobs/claim', { agentId: 'other', max: 10, waitSeconds: 0 })
    ).body as { jobs: Array<{ check: { logicalId: string } }> }
    const theirs = rest.jobs.map((j) => j.check.logicalId)
    expect(theirs).toHaveLength(3)
    expect([...mine, ...theirs].sort()).toEqual(['r8-0', 'r8-1', 'r8-2', 'r8-3', 'r8-4'])
    stop.abort()
    await client.close()
  })

  it('a whole agent with a refused key stops, and the CLI is told why', async () => {
    const s = await setup('loc-remote-9')
    const config = { ...s.config, apiKey: 'op_revoked-or-wrong' }
    const info = { id: 'a9', version: '7.0.1', flavor: 'full' as const }
    const reasons: string[] = []
    let agent: Agent | undefined
    const parts = await createRemoteParts({
      config,
      log: s.log,
      scrubber: createScrubber([s.key]),
      info,
      checkTypes: ['URL'],
      waitSeconds: 1,
      backoff: FAST_BACKOFF,
      onRejectedKey: (error) => {
        reasons.push(error.message)
        void agent?.stop()
      },
    })
    agent = await startAgent({
      config,
      log: s.log,
      scrubber: createScrubber([]),
      source: parts.source,
      executors,
      info,
      sink: parts.sink,
    })
    await agent.stopped
    await parts.close(100)
    expect(reasons.length).toBeGreaterThanOrEqual(1)
    expect(reasons[0]).toMatch(/rejected the API key \(401/)
    expect(s.lines().join('\n')).not.toContain('op_revoked-or-wrong')
  })
})
