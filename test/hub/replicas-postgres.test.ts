// Two hub replicas (separate processes) on one PostgreSQL, three agent processes: 1,000 jobs, each
// run exactly once and none lost; then an agent killed with SIGKILL mid-job: its job runs elsewhere
// once the lease (shortened to 6 s here) runs out.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { urlRequest } from '../helpers/definitions.ts'
import { type Child, spawnScript } from './helpers/child.ts'
import { startPostgres, type TestPostgres } from './helpers/postgres.ts'

const root = path.resolve(import.meta.dirname, '../..')
const HUB_MAIN = path.join(root, 'test/hub/fixtures/hub-main.ts')
const AGENT_MAIN = path.join(root, 'test/agent/remote/fixtures/remote-agent-main.ts')
const LOCATION = 'replica-test'

interface Hit {
  path: string
  agent: string
}

describe('two hub replicas on one PostgreSQL with three agents', () => {
  let postgres: TestPostgres
  const children: Child[] = []
  const dirs: string[] = []
  let target: Server
  let targetUrl: string
  const hits: Hit[] = []
  const held: Array<() => void> = []
  let hubs: string[] = []
  let key = ''
  const agents = new Map<string, Child>()

  const api = async (base: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${base}${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) }
  }

  const completion = async (base: string, sessionId: string): Promise<unknown> => {
    for (let i = 0; i < 40; i += 1) {
      const response = await api(base, `/v2/check-sessions/${sessionId}/completion?maxWaitSeconds=30`)
      if (response.status === 200) return response.body
      expect(response.status).toBe(408)
    }
    throw new Error('the session did not complete')
  }

  const check = (logicalId: string) => ({
    type: 'URL',
    logicalId,
    name: logicalId,
    request: urlRequest(`${targetUrl}/${logicalId}`),
    degradedResponseTime: 20_000,
    maxResponseTime: 25_000,
    timeoutSeconds: 30,
  })

  beforeAll(async () => {
    postgres = await startPostgres()
    const databaseUrl = await postgres.createDatabase()
    target = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? ''
      hits.push({ path: url, agent: String(req.headers['x-agent']) })
      if (url.startsWith('/hold')) held.push(() => res.end('late'))
      else res.end('ok')
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`

    const startHubProcess = async (): Promise<string> => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-replica-'))
      dirs.push(dataDir)
      const hub = spawnScript(
        HUB_MAIN,
        { HUB_PORT: '0', HUB_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, HUB_LEASE_SECONDS: '6' },
        root,
      )
      children.push(hub)
      const match = await hub.waitFor(/listening on (http:\/\/\S+)/)
      if (key === '') {
        const credentials = JSON.parse(await readFile(path.join(dataDir, 'credentials.json'), 'utf8')) as {
          apiKey: string
        }
        key = credentials.apiKey
      }
      return match[1] as string
    }
    // The first replica creates the account; the second finds it.
    hubs = [await startHubProcess()]
    hubs.push(await startHubProcess())

    for (const [i, hubUrl] of [hubs[0], hubs[0], hubs[1]].entries()) {
      const id = `replica-agent-${i + 1}`
      const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-replica-agent-'))
      dirs.push(dataDir)
      const agent = spawnScript(
        AGENT_MAIN,
        {
          SERVICE_API_URL: hubUrl as string,
          API_KEY: key,
          AGENT_LOCATION: LOCATION,
          AGENT_DATA_DIR: dataDir,
          AGENT_HEALTH_PORT: '0',
          AGENT_HEARTBEAT_PORT: '0',
          AGENT_LISTEN_HOST: '127.0.0.1',
          UPTIME_CONCURRENCY: '20',
          TEST_AGENT_ID: id,
        },
        root,
      )
      children.push(agent)
      agents.set(id, agent)
      await agent.waitFor(/AGENT READY/)
    }
  }, 600_000)

  afterAll(async () => {
    for (const release of held.splice(0)) release()
    for (const child of children.reverse()) await child.kill('SIGKILL')
    await new Promise<void>((resolve) => target?.close(() => resolve()))
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
    await postgres?.stop()
  })

  it('1,000 jobs: each run exactly once, none lost, spread over the agents', async () => {
    const checks = Array.from({ length: 1000 }, (_, i) => check(`job-${i}`))
    const triggered = await api(hubs[1] as string, '/v2/check-sessions/trigger', {
      checks,
      location: LOCATION,
    })
    expect(triggered.status).toBe(201)
    const { checkSessionId } = triggered.body as { checkSessionId: string }
    expect(await completion(hubs[0] as string, checkSessionId)).toBe('PASSED')
    const jobHits = hits.filter((h) => h.path.startsWith('/job-'))
    expect(jobHits).toHaveLength(1000)
    expect(new Set(jobHits.map((h) => h.path)).size).toBe(1000)
    const perAgent = new Map<string, number>()
    for (const hit of jobHits) perAgent.set(hit.agent, (perAgent.get(hit.agent) ?? 0) + 1)
    expect([...perAgent.keys()].sort()).toEqual(['replica-agent-1', 'replica-agent-2', 'replica-agent-3'])
    for (const i of [0, 499, 999]) {
      const results = (await api(hubs[i % 2] as string, `/v1/check-results/job-${i}`)).body as {
        entries: unknown[]
      }
      expect(results.entries).toHaveLength(1)
    }
  })

  it('an agent killed with SIGKILL mid-job: the job runs elsewhere after the lease', async () => {
    const triggered = await api(hubs[0] as string, '/v2/check-sessions/trigger', {
      checks: [check('hold-1')],
      location: LOCATION,
    })
    const { checkSessionId, runIds } = triggered.body as { checkSessionId: string; runIds: string[] }
    for (let i = 0; i < 400 && !hits.some((h) => h.path === '/hold-1'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const first = hits.find((h) => h.path === '/hold-1')
    expect(first).toBeDefined()
    await agents.get(first?.agent as string)?.kill('SIGKILL')
    // The lease lapses (6 s); another agent claims the job and requests the target again.
    for (let i = 0; i < 600 && hits.filter((h) => h.path === '/hold-1').length < 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const runs = hits.filter((h) => h.path === '/hold-1')
    expect(runs).toHaveLength(2)
    expect(runs[1]?.agent).not.toBe(first?.agent)
    for (const release of held.splice(0)) release()
    expect(await completion(hubs[1] as string, checkSessionId)).toBe('PASSED')
    const results = (await api(hubs[1] as string, '/v1/check-results/hold-1')).body as {
      entries: Array<{ id: string; agent: { id: string } }>
    }
    expect(results.entries).toHaveLength(1)
    expect(results.entries[0]).toMatchObject({ id: runIds[0], agent: { id: runs[1]?.agent } })
  })
})
