// The remote agent (`outpost agent` reporting to a hub) SIGKILLed with results in its spool, twice:
// once while the hub is down (results piled up, two checks still running), once while the spool is
// being drained (the hub has recorded the results, the agent never heard back). After each restart,
// every result produced before a kill reaches the hub exactly once, spooled results are delivered
// rather than run again, the checks the kill cut off are run again once their lease lapses, and
// debris in the spool (a write cut off by the kill, a damaged file) is set aside with a warning.

import { randomUUID } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Hub, startHub } from '../../src/hub/hub.ts'
import type { CheckResult } from '../../src/model/result.ts'
import { type AgentProcess, spawnAgent } from '../helpers/agent-process.ts'
import { urlCheck } from '../helpers/definitions.ts'
import { testHubConfig } from '../hub/helpers/test-hub.ts'

const LOCATION = 'spool-sigkill'
/** Checks that finish while the hub is down: their results wait in the spool at the first kill. */
const SPOOLED = ['spooled-0', 'spooled-1', 'spooled-2', 'spooled-3', 'spooled-4', 'spooled-5']
/** Checks still running (their target holds the request) at the first kill: no result exists yet. */
const RUNNING = ['running-0', 'running-1']
/** Short, so the jobs a dead agent held are handed out again within the test. */
const LEASE_SECONDS = 3

async function until(what: string, condition: () => Promise<boolean> | boolean, agent?: AgentProcess) {
  // Bounded by the test's own timeout too; a dead agent ends the wait at once.
  for (let i = 0; i < 600; i += 1) {
    if (await condition()) return
    if (agent && agent.child.exitCode !== null) throw new Error(`agent exited while waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`gave up waiting for ${what}`)
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** What the checks probe: counts requests per path; paths under a held prefix wait to be answered. */
async function startTarget() {
  const hits = new Map<string, number>()
  const holding = new Set<string>()
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1)
    hits.set(name, (hits.get(name) ?? 0) + 1)
    if (!holding.has(name.split('-')[0] as string)) res.end('ok')
    else {
      // Answered when released; a probe killed meanwhile leaves a closed socket behind.
      const release = () => {
        if (!holding.has(name.split('-')[0] as string)) res.end('ok')
        else setTimeout(release, 50)
      }
      setTimeout(release, 50)
    }
  })
  const port = await listen(server)
  return {
    url: `http://127.0.0.1:${port}`,
    hits: (name: string) => hits.get(name) ?? 0,
    holding,
    close: () => closeServer(server),
  }
}

type ResultsMode = 'pass' | 'hold-requests' | 'hold-answers'

/**
 * Between the agent and the hub: passes everything through, except that posted results can be held
 * before they reach the hub (the hub has not seen them) or after (the hub recorded them, the agent
 * never hears back). Counts the hub's answers per run id: 201 the first time, 200 for a repeat.
 */
async function startHubProxy(hubPort: () => number) {
  const created = new Map<string, number>()
  const repeated = new Map<string, number>()
  const heldRequests: Array<() => void> = []
  const heldAnswers: Array<() => void> = []
  const state = { mode: 'pass' as ResultsMode }
  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, isResult: boolean) => {
    const upstream = request(
      { host: '127.0.0.1', port: hubPort(), method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          const text = Buffer.concat(chunks)
          if (isResult && (answer.statusCode === 200 || answer.statusCode === 201)) {
            const { id } = JSON.parse(text.toString()) as { id: string }
            const counter = answer.statusCode === 201 ? created : repeated
            counter.set(id, (counter.get(id) ?? 0) + 1)
          }
          const reply = () => {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            res.end(text)
          }
          if (isResult && state.mode === 'hold-answers') heldAnswers.push(reply)
          else reply()
        })
      },
    )
    // The hub is down: the agent sees its connection drop, as with an unreachable hub.
    upstream.on('error', () => res.destroy())
    upstream.end(body)
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const isResult = req.method === 'POST' && req.url === '/v1/agent/results'
      const go = () => forward(req, Buffer.concat(chunks), res, isResult)
      if (isResult && state.mode === 'hold-requests') heldRequests.push(go)
      else go()
    })
  })
  const port = await listen(server)
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    created,
    repeated,
    heldRequests: () => heldRequests.length,
    /** Sends the held results on to the hub (their answers then follow the mode). */
    forwardHeld() {
      for (const go of heldRequests.splice(0)) go()
    },
    close: () => closeServer(server),
  }
}

function openHub(dataDir: string, port = 0): Promise<Hub> {
  return startHub({
    config: testHubConfig(dataDir, { port, leaseSeconds: LEASE_SECONDS }),
  })
}

describe('the remote agent SIGKILLed with a full spool', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })

  it('delivers every result produced before a kill exactly once, re-runs only what the kill cut off', {
    timeout: 120_000,
  }, async () => {
    const hubDir = await mkdtemp(path.join(tmpdir(), 'outpost-sigkill-hub-'))
    const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-sigkill-agent-'))
    cleanup.push(() => rm(hubDir, { recursive: true, force: true }))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    let hub = await openHub(hubDir)
    const hubPort = hub.port
    cleanup.push(() => hub.close().catch(() => undefined))
    const account = await hub.store.createAccount('sigkill')
    const key = (await hub.store.createApiKey(account.id, 'agent')).key
    const target = await startTarget()
    cleanup.push(() => target.close())
    const proxy = await startHubProxy(() => hubPort)
    cleanup.push(() => proxy.close())
    const spoolDir = path.join(dataDir, 'spool', 'results')
    const spooled = async (): Promise<string[]> =>
      (await readdir(spoolDir).catch(() => [] as string[])).filter((name) => name.endsWith('.json'))
    const agents: AgentProcess[] = []
    const startAgentProcess = async (): Promise<AgentProcess> => {
      const agent = spawnAgent(['agent'], {
        SERVICE_API_URL: proxy.url,
        API_KEY: key,
        AGENT_LOCATION: LOCATION,
        AGENT_DATA_DIR: dataDir,
        AGENT_FLAVOR: 'uptime',
        AGENT_HEALTH_PORT: '0',
        AGENT_LISTEN_HOST: '127.0.0.1',
        EXTERNAL_OBSERVABILITY: 'off',
      })
      agents.push(agent)
      cleanup.push(() => {
        if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL')
      })
      await agent.waitForOutput(/agent ready/, 60_000)
      return agent
    }
    const sigkill = async (agent: AgentProcess): Promise<void> => {
      agent.child.kill('SIGKILL')
      expect((await agent.exited).signal).toBe('SIGKILL')
    }

    // 1. The agent claims eight jobs; the hub goes away; six finish and wait in the spool, two are
    //    still running when the agent is killed.
    const first = await startAgentProcess()
    await first.waitForOutput(/registered with the hub/)
    target.holding.add('spooled')
    target.holding.add('running')
    const names = [...SPOOLED, ...RUNNING]
    const checks = names.map((name) =>
      urlCheck(name, {
        request: { ...urlCheck(name).request, url: `${target.url}/${name}` },
        degradedResponseTime: 20_000,
        maxResponseTime: 30_000,
      }),
    )
    const trigger = await fetch(`${hub.url}/v2/check-sessions/trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ checks, location: LOCATION }),
    })
    expect(trigger.status).toBe(201)
    const { runIds, checkSessionId } = (await trigger.json()) as { runIds: string[]; checkSessionId: string }
    const runOf = new Map(names.map((name, i) => [name, runIds[i] as string]))
    await until('all eight checks running', () => names.every((n) => target.hits(n) === 1), first)
    await hub.close()
    target.holding.delete('spooled')
    await until('six results in the spool', async () => (await spooled()).length === SPOOLED.length, first)
    await first.waitForOutput(/result delivery failed; \d+ result\(s\) kept in the spool/)
    await sigkill(first)
    const beforeKill = new Map<string, CheckResult>()
    for (const file of await spooled()) {
      const result = JSON.parse(await readFile(path.join(spoolDir, file), 'utf8')) as CheckResult
      beforeKill.set(result.id, result)
    }
    expect([...beforeKill.keys()].sort()).toEqual(SPOOLED.map((n) => runOf.get(n)).sort())
    target.holding.delete('running')

    // Debris a kill can leave: a write cut off before its rename. And a damaged spool file, which a
    // kill cannot make (a file is fsynced before it is renamed into place) but a bad disk can: it
    // must not block the results behind it.
    const torn = `${Date.now().toString().padStart(15, '0')}-000099-${randomUUID()}.json.tmp`
    await writeFile(path.join(spoolDir, torn), '{"id":"cut-off-mid-write","checkId":"spoo')
    const damaged = `000000000000001-000000-${randomUUID()}.json`
    await writeFile(path.join(spoolDir, damaged), '{"id":"damaged","status":"pas')

    // 2. The hub is back; the restarted agent's results are held before they reach it. Its leases
    //    lapsed, so the hub hands all eight jobs out again: the six in the spool are not run again,
    //    the two cut off by the kill are.
    hub = await openHub(hubDir, hubPort)
    proxy.state.mode = 'hold-requests'
    const second = await startAgentProcess()
    await until(
      'the spooled jobs claimed again and recognised',
      () =>
        SPOOLED.every((n) =>
          second.output().includes(`run ${runOf.get(n)} already has a result in the spool`),
        ),
      second,
    )
    await until('the cut-off checks run again', () => RUNNING.every((n) => target.hits(n) === 2), second)
    await until('all eight results spooled', async () => (await spooled()).length === names.length, second)
    await until('the spooled results posted', () => proxy.heldRequests() >= SPOOLED.length, second)
    expect(second.output()).toMatch(
      /discarded 1 incomplete spool write\(s\) left by an agent stopped mid-write/,
    )
    expect(second.output()).toContain(`spool file ${damaged} is not a whole result`)

    // 3. The hub records what was posted, and the agent is killed before it hears back.
    proxy.state.mode = 'hold-answers'
    proxy.forwardHeld()
    await until('the hub to record the posted results', () =>
      SPOOLED.every((n) => proxy.created.get(runOf.get(n) as string) === 1),
    )
    await sigkill(second)
    expect((await spooled()).length).toBe(names.length)

    // 4. A third start delivers the spool: what the hub had already is answered as a repeat.
    proxy.state.mode = 'pass'
    const third = await startAgentProcess()
    await until('the spool to drain', async () => (await spooled()).length === 0, third)
    third.child.kill('SIGTERM')
    expect((await third.exited).code).toBe(0)

    for (const name of names) {
      const runId = runOf.get(name) as string
      expect(proxy.created.get(runId), `${name}: recorded once`).toBe(1)
      const page = await fetch(`${hub.url}/v1/check-results/${name}?limit=100`, {
        headers: { authorization: `Bearer ${key}` },
      })
      const entries = ((await page.json()) as { entries: CheckResult[] }).entries
      expect(entries.map((r) => r.id)).toEqual([runId])
      const original = beforeKill.get(runId)
      // What reached the hub is the result produced before the first kill, not a second run.
      if (original !== undefined) expect(entries[0]?.startedAt).toBe(original.startedAt)
    }
    for (const name of SPOOLED) {
      expect(target.hits(name), `${name}: run once`).toBe(1)
      expect(proxy.repeated.get(runOf.get(name) as string), `${name}: posted again`).toBeGreaterThanOrEqual(1)
    }
    for (const name of RUNNING) expect(target.hits(name), `${name}: run again once`).toBe(2)
    const completion = await fetch(`${hub.url}/v2/check-sessions/${checkSessionId}/completion`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(await completion.json()).toBe('PASSED')

    expect(await readdir(spoolDir)).toEqual([])
    expect(await readdir(path.join(dataDir, 'spool', 'rejected'))).toEqual([damaged])
    for (const agent of agents) {
      expect(agent.output()).not.toContain(key)
      expect(agent.output()).not.toMatch(/uncaught exception|unhandled promise rejection/i)
    }
  })
})
