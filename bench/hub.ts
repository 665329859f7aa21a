// bench/hub: claim-plus-result throughput (jobs/s) with four agents, for SQLite and PostgreSQL, and
// p50/p99 latency of the incident list; each beside a bare fastify server answering the same
// requests with constant bodies, measured in the same run, so figures are ratios to that baseline.
// The "agents" are four HTTP clients speaking the agent protocol (claim up to 10 jobs, post each
// result), so the figures are the hub's, not the probes'.
// usage: bench/hub [--jobs 2000] [--requests 2000] [--no-postgres]

import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import Fastify from 'fastify'
import { MAX_ARTIFACT_BYTES } from '../src/hub/config.ts'
import { startHub } from '../src/hub/hub.ts'
import { ms, percentile, ratio } from './lib/stats.ts'

const { values } = (await import('node:util')).parseArgs({
  options: {
    jobs: { type: 'string', default: '2000' },
    requests: { type: 'string', default: '2000' },
    'no-postgres': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
})
if (values.help) {
  console.log('usage: bench/hub [--jobs 2000] [--requests 2000] [--no-postgres]')
  process.exit(0)
}
const JOBS = Number(values.jobs)
const REQUESTS = Number(values.requests)
const AGENTS = 4
const CLAIM_BATCH = 10
const run = promisify(execFile)

interface Target {
  url: string
  key: string
  close(): Promise<void>
}

async function call(target: Target, method: string, pathname: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${target.url}${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${target.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${pathname}: ${response.status} ${text}`)
  return text === '' ? undefined : JSON.parse(text)
}

function resultFor(id: string, agent: string): Record<string, unknown> {
  return {
    id,
    checkId: `bench-${id}`,
    checkType: 'URL',
    name: 'bench',
    status: 'passed',
    startedAt: new Date().toISOString(),
    durationMs: 1,
    location: 'bench',
    attempt: 1,
    assertions: [],
    artifacts: [],
    agent: { id: agent, version: 'bench', flavor: 'full' },
  }
}

/** Four agents claim and report until `total` results are in; jobs/s over that time. */
async function agentsRun(target: Target, total: number, enqueue: () => Promise<void>): Promise<number> {
  for (let i = 0; i < AGENTS; i += 1) {
    await call(target, 'POST', '/v1/agent/register', {
      agentId: `bench-${i}`,
      flavor: 'full',
      version: 'bench',
      location: 'bench',
      checkTypes: ['URL'],
    })
  }
  await enqueue()
  let done = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, i) => {
      const agentId = `bench-${i}`
      while (done < total) {
        const { jobs } = (await call(target, 'POST', '/v1/agent/jobs/claim', {
          agentId,
          max: CLAIM_BATCH,
          waitSeconds: 0,
        })) as { jobs: Array<{ id: string }> }
        if (jobs.length === 0) {
          if (done >= total) break
          await new Promise((resolve) => setTimeout(resolve, 5))
          continue
        }
        for (const job of jobs) {
          await call(target, 'POST', '/v1/agent/results', resultFor(job.id, agentId))
          done += 1
        }
      }
    }),
  )
  return total / ((performance.now() - started) / 1000)
}

async function listLatencies(target: Target, pathname: string): Promise<number[]> {
  // Warm-up (JIT, connection pool, statement caches) is not measured.
  for (let i = 0; i < 200; i += 1) await call(target, 'GET', pathname)
  const latencies: number[] = []
  let left = REQUESTS
  await Promise.all(
    Array.from({ length: AGENTS }, async () => {
      while (left > 0) {
        left -= 1
        const t0 = performance.now()
        await call(target, 'GET', pathname)
        latencies.push(performance.now() - t0)
      }
    }),
  )
  return latencies
}

/** The baseline: the same requests answered by constant handlers, no auth, no database. */
async function bareServer(): Promise<Target> {
  const app = Fastify({ logger: false })
  let next = 0
  app.post('/v1/agent/register', async () => ({ ok: true }))
  app.post('/v1/agent/jobs/claim', async () => ({
    jobs: Array.from({ length: CLAIM_BATCH }, () => ({ id: `bare-${next++}` })),
  }))
  app.post('/v1/agent/results', async (request) => ({
    id: (request.body as { id: string }).id,
    duplicate: false,
  }))
  app.get('/list', async () => ({ length: 0, entries: [], nextId: null }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, key: 'none', close: () => app.close() }
}

async function hubTarget(databaseUrl?: string): Promise<Target & { trigger(n: number): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-bench-hub-'))
  const hub = await startHub({
    config: {
      port: 0,
      host: '127.0.0.1',
      databaseUrl,
      dataDir,
      leaseSeconds: 300,
      jobExpirySeconds: 3600,
      locationTimeoutSeconds: 600,
      maxArtifactBytes: MAX_ARTIFACT_BYTES,
    },
  })
  const account = await hub.store.createAccount('bench')
  const { key } = await hub.store.createApiKey(account.id, 'bench')
  const target = {
    url: hub.url,
    key,
    async trigger(n: number) {
      for (let offset = 0; offset < n; offset += 1000) {
        const checks = Array.from({ length: Math.min(1000, n - offset) }, (_, i) => ({
          type: 'URL',
          logicalId: `bench-${offset + i}`,
          name: 'bench',
        }))
        await call(target, 'POST', '/v2/check-sessions/trigger', { checks, location: 'bench' })
      }
    },
    async close() {
      await hub.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
  for (let i = 0; i < 500; i += 1) {
    await call(target, 'POST', '/v1/status-pages/incidents', {
      name: `incident ${i}`,
      severity: 'MINOR',
      description: 'bench',
    })
  }
  return target
}

async function startPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  const script = path.resolve(import.meta.dirname, '../scripts/postgres-test-server')
  const { stdout } = await run(script, ['start'])
  const dir = /^PGTEST_DIR=(.+)$/m.exec(stdout)?.[1] as string
  const url = /^DATABASE_URL=(.+)$/m.exec(stdout)?.[1] as string
  return { url, stop: async () => void (await run(script, ['stop', dir])) }
}

console.log(`bench/hub: ${JOBS} jobs claimed (${CLAIM_BATCH} per claim) and reported by ${AGENTS} agents;`)
console.log(`           incident list (limit 20 of 500) requested ${REQUESTS} times by ${AGENTS} clients\n`)

const bare = await bareServer()
const bareJobsPerSecond = await agentsRun(bare, JOBS, async () => {})
const bareLatencies = await listLatencies(bare, '/list')
await bare.close()
console.log(
  `baseline (bare fastify):  ${bareJobsPerSecond.toFixed(0)} jobs/s; list p50 ${ms(percentile(bareLatencies, 50))}, p99 ${ms(percentile(bareLatencies, 99))}`,
)

const backends: Array<{ name: string; url?: string }> = [{ name: 'SQLite' }]
let postgres: { url: string; stop(): Promise<void> } | undefined
if (!values['no-postgres']) {
  postgres = await startPostgres()
  backends.push({ name: 'PostgreSQL', url: postgres.url })
}
try {
  for (const backend of backends) {
    const target = await hubTarget(backend.url)
    const jobsPerSecond = await agentsRun(target, JOBS, () => target.trigger(JOBS))
    const latencies = await listLatencies(target, '/v1/status-pages/incidents?limit=20')
    await target.close()
    const p50 = percentile(latencies, 50)
    const p99 = percentile(latencies, 99)
    console.log(
      `${`${backend.name}:`.padEnd(26)}${jobsPerSecond.toFixed(0)} jobs/s (${ratio(jobsPerSecond, bareJobsPerSecond)} of bare); ` +
        `list p50 ${ms(p50)} (${ratio(p50, percentile(bareLatencies, 50))}), p99 ${ms(p99)} (${ratio(p99, percentile(bareLatencies, 99))} of bare)`,
    )
  }
} finally {
  await postgres?.stop()
}
