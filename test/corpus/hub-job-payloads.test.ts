// Broken job payloads from the hub, through the real remote agent (createRemoteParts + startAgent with
// the real uptime probes). A real hub on loopback queues real jobs (a triggered session); between it
// and the agent sits a loopback proxy that mangles the claim answer in flight, as a buggy, older,
// newer or compromised hub, or a proxy in the way, would. Every other request passes through
// untouched, so the hub's own validation judges each result the agent posts. Each case asserts its
// own error text naming the field; one good URL job in each batch must pass beside the broken ones.

import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Agent, startAgent } from '../../src/agent/agent.ts'
import { createDefaultExecutors } from '../../src/agent/default-executors.ts'
import { supportedTypes } from '../../src/agent/executors.ts'
import { createRemoteParts } from '../../src/agent/remote/index.ts'
import { type Hub, startHub } from '../../src/hub/hub.ts'
import type { CheckResult } from '../../src/model/result.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { testAgentConfig } from '../helpers/agent-config.ts'
import { captureLogger } from '../helpers/capture-logger.ts'
import { urlRequest } from '../helpers/definitions.ts'
import { testHubConfig } from '../hub/helpers/test-hub.ts'

/** A job as the hub's claim answer carries it. */
interface WireJob {
  id: string
  check: Record<string, unknown>
  dueAt: number
  attempt: number
  sessionId?: string
  testSession: boolean
  leaseUntil: number
}

/** A job whose run id survives: it must not run, and its run must be reported failed naming the field. */
interface RejectedCase {
  kind: 'rejected'
  label: string
  /** What the agent receives instead of the hub's job. */
  mangle(job: WireJob): unknown
  error: string
}
/** Hostile but valid text: the job runs, passes, and its text reaches the hub unchanged. */
interface RunsCase {
  kind: 'runs'
  label: string
  mangle(job: WireJob): unknown
  name: string
}
/** No run id to report against: skipped with a warning naming the field. */
interface UnidentifiedCase {
  kind: 'unidentified'
  label: string
  mangle(job: WireJob): unknown
  log: string
}
/** The answer itself is not {jobs: [...]}: the claim is retried; nothing is run or reported. */
interface EnvelopeCase {
  kind: 'envelope'
  label: string
  answer: { status: number; contentType: string; body: string }
  log: string
}
type PayloadCase = RejectedCase | RunsCase | UnidentifiedCase | EnvelopeCase

const withCheck = (job: WireJob, patch: Record<string, unknown>): WireJob => ({
  ...job,
  check: { ...job.check, ...patch },
})
const withRequest = (job: WireJob, patch: Record<string, unknown>): WireJob =>
  withCheck(job, { request: { ...(job.check.request as Record<string, unknown>), ...patch } })
const without = (value: Record<string, unknown>, key: string): Record<string, unknown> => {
  const copy = { ...value }
  delete copy[key]
  return copy
}
/** A SERVICE_SECRET_* value of the agent's: a hub that sends it back must not see it in a result. */
const AGENT_SECRET = 'agent-secret-value-4711'
const INJECTION = `'; DROP TABLE results; -- <script>alert(1)</script> \${process.exit()} $(rm -rf /) ../../etc/passwd`

const cases: PayloadCase[] = [
  // The job's own fields.
  {
    kind: 'rejected',
    label: 'dueAt a string',
    mangle: (j) => ({ ...j, dueAt: 'soon' }),
    error: 'dueAt: must be a number (epoch milliseconds, not negative), got "soon"',
  },
  {
    kind: 'rejected',
    label: 'attempt negative',
    mangle: (j) => ({ ...j, attempt: -1 }),
    error: 'attempt: must be an integer from 0 to 9007199254740991, got -1',
  },
  {
    kind: 'rejected',
    label: 'attempt missing',
    mangle: (j) => without({ ...j }, 'attempt'),
    error: 'attempt: is required: an integer from 0 to',
  },
  {
    kind: 'rejected',
    label: 'leaseUntil null',
    mangle: (j) => ({ ...j, leaseUntil: null }),
    error: 'leaseUntil: must be a number (epoch milliseconds, not negative), got null',
  },
  {
    kind: 'rejected',
    label: 'testSession a string',
    mangle: (j) => ({ ...j, testSession: 'yes' }),
    error: 'testSession: must be true or false, got "yes"',
  },
  {
    kind: 'rejected',
    label: 'sessionId with NUL',
    mangle: (j) => ({ ...j, sessionId: 'a\u0000b' }),
    error: 'sessionId: must not contain NUL (U+0000), got "a\\u0000b"',
  },
  // The check as a whole.
  {
    kind: 'rejected',
    label: 'check null',
    mangle: (j) => ({ ...j, check: null }),
    error: 'check: must be an object (a check definition), got null',
  },
  {
    kind: 'rejected',
    label: 'check an array',
    mangle: (j) => ({ ...j, check: [j.check] }),
    error: 'check: must be an object (a check definition), got an array',
  },
  {
    kind: 'rejected',
    label: 'check a string',
    mangle: (j) => ({ ...j, check: 'URL' }),
    error: 'check: must be an object (a check definition), got "URL"',
  },
  {
    kind: 'rejected',
    label: 'unknown check type',
    mangle: (j) => withCheck(j, { type: 'GOPHER' }),
    error:
      'check.type: must be one of URL, DNS, TCP, ICMP, HEARTBEAT, API, MULTI_STEP, BROWSER, PLAYWRIGHT, got "GOPHER"',
  },
  {
    kind: 'rejected',
    label: 'type not registered (MULTI_STEP to the uptime flavor)',
    mangle: (j) => withCheck(j, { type: 'MULTI_STEP', code: { content: 'x' }, runtimeId: '2026.04' }),
    error: 'check.type: this agent registered for URL, DNS, TCP, ICMP, HEARTBEAT only, got "MULTI_STEP"',
  },
  {
    kind: 'rejected',
    label: 'type missing',
    mangle: (j) => ({ ...j, check: without(j.check, 'type') }),
    error: 'check.type: is required; one of URL, DNS',
  },
  {
    kind: 'rejected',
    label: 'logicalId a number',
    mangle: (j) => withCheck(j, { logicalId: 7 }),
    error: 'check.logicalId: must be a string, got 7',
  },
  {
    kind: 'rejected',
    label: 'logicalId with NUL',
    mangle: (j) => withCheck(j, { logicalId: 'abc\u0000def' }),
    error: 'check.logicalId: must not contain NUL (U+0000), got "abc\\u0000def"',
  },
  {
    kind: 'rejected',
    label: 'name of 2 MB',
    mangle: (j) => withCheck(j, { name: 'n'.repeat(2_000_000) }),
    error: 'check.name: must be at most 1024 characters, got 2000000',
  },
  {
    kind: 'rejected',
    label: 'frequencySeconds a string',
    mangle: (j) => withCheck(j, { frequencySeconds: '60' }),
    error: 'check.frequencySeconds: must be a positive number of seconds, got "60"',
  },
  {
    kind: 'rejected',
    label: 'timeoutSeconds huge',
    mangle: (j) => withCheck(j, { timeoutSeconds: 1e12 }),
    error: 'check.timeoutSeconds: must be an integer from 1 to 3600 s, got 1000000000000',
  },
  {
    kind: 'rejected',
    label: 'retryStrategy garbage',
    mangle: (j) => withCheck(j, { retryStrategy: 'garbage' }),
    error:
      'check.retryStrategy: must be an object {type, baseBackoffSeconds, maxRetries, maxDurationSeconds, sameRegion}, got "garbage"',
  },
  // Scheduled (not a session): today this retried without pause, forever, with fresh run ids.
  {
    kind: 'rejected',
    label: 'retryStrategy without its numbers',
    mangle: (j) =>
      withRequest(withCheck({ ...j, testSession: false }, { retryStrategy: { type: 'LINEAR' } }), {
        url: `${String((j.check.request as { url: string }).url)}/fail`,
      }),
    error: 'check.retryStrategy.baseBackoffSeconds: is required when type is LINEAR',
  },
  {
    kind: 'rejected',
    label: 'retryStrategy type unknown',
    mangle: (j) =>
      withCheck(j, {
        retryStrategy: { type: 'SOMETIMES', baseBackoffSeconds: 1, maxRetries: 1, maxDurationSeconds: 1 },
      }),
    error: 'check.retryStrategy.type: must be one of NONE, FIXED, LINEAR, EXPONENTIAL, got "SOMETIMES"',
  },
  {
    kind: 'rejected',
    label: 'environmentVariables not an array',
    mangle: (j) => withCheck(j, { environmentVariables: 'A=1' }),
    error: 'check.environmentVariables: must be an array of {key, value, secret?}, got "A=1"',
  },
  {
    kind: 'rejected',
    label: 'environment value not a string (not shown)',
    mangle: (j) =>
      withCheck(j, { environmentVariables: [{ key: 'TOKEN', value: { secret: 'env-value-never-shown' } }] }),
    error: 'check.environmentVariables[0].value: must be a string, got an object',
  },
  // The URL check's own fields.
  {
    kind: 'rejected',
    label: 'request a string',
    mangle: (j) => withCheck(j, { request: 'GET /' }),
    error: 'check.request: must be an object (a URL check needs one), got "GET /"',
  },
  {
    kind: 'rejected',
    label: 'request missing',
    mangle: (j) => ({ ...j, check: without(j.check, 'request') }),
    error: 'check.request: must be an object (a URL check needs one), got undefined',
  },
  {
    kind: 'rejected',
    label: 'request.url missing',
    mangle: (j) => withCheck(j, { request: without(j.check.request as Record<string, unknown>, 'url') }),
    error: 'check.request.url: is required for URL checks',
  },
  {
    kind: 'rejected',
    label: 'request.assertions a string',
    mangle: (j) => withRequest(j, { assertions: '200' }),
    error: 'check.request.assertions: must be an array of assertions, got "200"',
  },
  {
    kind: 'rejected',
    label: 'request.url a number',
    mangle: (j) => withRequest(j, { url: 42 }),
    error: 'check.request.url: must be a string, got 42',
  },
  {
    kind: 'rejected',
    label: 'request.url not http',
    mangle: (j) => withRequest(j, { url: 'file:///etc/passwd' }),
    error: 'check.request.url: must use http or https, got "file"',
  },
  {
    kind: 'rejected',
    label: 'request.method unknown',
    mangle: (j) => withRequest(j, { method: 'BREW' }),
    error: 'check.request.method: must be one of GET, HEAD, got "BREW"',
  },
  {
    kind: 'rejected',
    label: 'an agent secret quoted back in the problem is scrubbed from the result',
    mangle: (j) => withRequest(j, { method: AGENT_SECRET }),
    error: 'check.request.method: must be one of GET, HEAD, got "*********"',
  },
  {
    kind: 'rejected',
    label: 'request.headers an object (values not shown)',
    mangle: (j) => withRequest(j, { headers: [{ key: 'authorization', value: 99 }] }),
    error: 'check.request.headers[0]: must be {key, value} with a non-empty string key and a string value',
  },
  {
    kind: 'rejected',
    label: 'maxResponseTime beyond any job timeout',
    mangle: (j) => withCheck(j, { maxResponseTime: 1e10 }),
    error: 'check.maxResponseTime: must be at most 3600000 milliseconds, got 10000000000',
  },
  {
    kind: 'rejected',
    label: 'maxResponseTime a string',
    mangle: (j) => withCheck(j, { maxResponseTime: 'fast' }),
    error: 'check.maxResponseTime: must be a number (milliseconds, not negative), got "fast"',
  },
  // Other types' own fields.
  {
    kind: 'rejected',
    label: 'DNS recordType BOGUS',
    mangle: (j) =>
      withCheck(j, {
        type: 'DNS',
        request: {
          query: 'localhost',
          recordType: 'BOGUS',
          nameServer: '127.0.0.1',
          port: 53,
          protocol: 'UDP',
          assertions: [],
        },
      }),
    error: 'check.request.recordType: must be one of A, AAAA, CNAME, MX, NS, TXT, SOA, HTTPS, got "BOGUS"',
  },
  {
    kind: 'rejected',
    label: 'DNS without a query',
    mangle: (j) =>
      withCheck(j, {
        type: 'DNS',
        request: { recordType: 'A', nameServer: '127.0.0.1', port: 53, protocol: 'UDP', assertions: [] },
      }),
    error: 'check.request.query: is required for DNS checks',
  },
  {
    kind: 'rejected',
    label: 'TCP port 70000',
    mangle: (j) =>
      withCheck(j, {
        type: 'TCP',
        request: { hostname: '127.0.0.1', port: 70000, ipFamily: 'IPv4', assertions: [] },
      }),
    error: 'check.request.port: must be an integer from 1 to 65535, got 70000',
  },
  {
    kind: 'rejected',
    label: 'ICMP pingCount a string',
    mangle: (j) =>
      withCheck(j, {
        type: 'ICMP',
        request: { hostname: '127.0.0.1', pingCount: 'many', ipFamily: 'IPv4', assertions: [] },
        degradedPacketLossThreshold: 10,
        maxPacketLossThreshold: 20,
      }),
    error: 'check.request.pingCount: must be an integer from 1 to 50, got "many"',
  },
  {
    kind: 'rejected',
    label: 'several problems at once',
    mangle: (j) => ({ ...withCheck(j, { name: 5, request: { url: [], method: 'PUT' } }), dueAt: -5 }),
    error:
      'dueAt: must be a number (epoch milliseconds, not negative), got -5; check.name: must be a string, got 5; check.request.url: must be a string, got an array (and 1 more)',
  },
  // Hostile text within the limits is data: it runs, and reaches the hub as sent.
  {
    kind: 'runs',
    label: 'injection strings in the name',
    mangle: (j) => withCheck(j, { name: INJECTION }),
    name: INJECTION,
  },
  {
    kind: 'runs',
    label: 'fields a newer hub may add',
    mangle: (j) =>
      withRequest(withCheck({ ...j, priority: 'high' } as WireJob, { futureOption: { x: 1 } }), {
        http3: true,
      }),
    name: 'fields a newer hub may add',
  },
  {
    kind: 'runs',
    label: 'a request without its headers and assertions lists',
    mangle: (j) =>
      withCheck(j, {
        name: 'request without lists',
        request: without(without(j.check.request as Record<string, unknown>, 'headers'), 'assertions'),
      }),
    name: 'request without lists',
  },
  // Without a usable run id there is nothing to report against.
  {
    kind: 'unidentified',
    label: 'id missing',
    mangle: (j) => without({ ...j }, 'id'),
    log: "id: must be a run id (1 to 100 letters, digits, '_' or '-'), got undefined",
  },
  {
    kind: 'unidentified',
    label: 'id a number',
    mangle: (j) => ({ ...j, id: 12345 }),
    log: "id: must be a run id (1 to 100 letters, digits, '_' or '-'), got 12345",
  },
  {
    kind: 'unidentified',
    label: 'id with a path in it',
    mangle: (j) => ({ ...j, id: '../../lease' }),
    log: "id: must be a run id (1 to 100 letters, digits, '_' or '-'), got \"../../lease\"",
  },
  {
    kind: 'unidentified',
    label: 'job a string',
    mangle: () => 'job-1',
    log: 'job: must be an object, got "job-1"',
  },
  { kind: 'unidentified', label: 'job null', mangle: () => null, log: 'job: must be an object, got null' },
  // The answer as a whole.
  {
    kind: 'envelope',
    label: 'HTML with 200',
    answer: { status: 200, contentType: 'text/html', body: '<!doctype html><title>Proxy login</title>' },
    log: 'the hub\'s answer to the job claim is not {jobs: [...]}: it is not JSON, got "<!doctype html><title>Proxy login</title>"',
  },
  {
    kind: 'envelope',
    label: 'not JSON at all',
    answer: { status: 200, contentType: 'application/json', body: '{"jobs": [' },
    log: 'it is not JSON, got "{\\"jobs\\": ["',
  },
  {
    kind: 'envelope',
    label: 'jobs not an array',
    answer: { status: 200, contentType: 'application/json', body: '{"jobs":"many"}' },
    log: 'jobs must be an array, got "many"',
  },
  {
    kind: 'envelope',
    label: 'jobs missing',
    answer: { status: 200, contentType: 'application/json', body: '{"work":[]}' },
    log: 'jobs is missing',
  },
  {
    kind: 'envelope',
    label: 'an array, not an object',
    answer: { status: 200, contentType: 'application/json', body: '[]' },
    log: 'it must be an object, got an array',
  },
  {
    kind: 'envelope',
    label: 'JSON null',
    answer: { status: 200, contentType: 'application/json', body: 'null' },
    log: 'it must be an object, got null',
  },
  {
    kind: 'envelope',
    label: 'empty 200',
    answer: { status: 200, contentType: 'application/json', body: '' },
    log: 'it was empty',
  },
]

const FAST_BACKOFF = { baseMs: 50, maxMs: 400 }

/** The loopback server the checks probe: counts requests per path; /…/fail answers 500. */
async function startTarget(): Promise<{ url: string; hits: Map<string, number>; close(): Promise<void> }> {
  const hits = new Map<string, number>()
  const server = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1)
    res.statusCode = req.url?.endsWith('/fail') ? 500 : 200
    res.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hits,
    close: () => closeServer(server),
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

interface Posted {
  result: CheckResult
  /** What the real hub answered. */
  status: number
}

/**
 * Passes every request to the hub, except the first claim: `firstClaim` either answers it itself
 * (the hub never sees it, so no job is leased and lost) or rewrites the hub's real answer.
 */
async function startMangler(
  hubUrl: string,
  firstClaim: { answer: EnvelopeCase['answer'] } | { rewrite: (jobs: WireJob[]) => unknown[] },
) {
  const posted: Posted[] = []
  const claims = { count: 0, firstBatch: -1 }
  let pending: typeof firstClaim | undefined = firstClaim
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req)
      const isClaim = req.method === 'POST' && req.url === '/v1/agent/jobs/claim'
      if (isClaim) claims.count += 1
      if (isClaim && pending !== undefined && 'answer' in pending) {
        const { answer } = pending
        pending = undefined
        res.writeHead(answer.status, { 'content-type': answer.contentType })
        res.end(answer.body)
        return
      }
      const headers: Record<string, string> = {}
      for (const name of ['authorization', 'content-type', 'x-service-account']) {
        const value = req.headers[name]
        if (typeof value === 'string') headers[name] = value
      }
      const upstream = await fetch(`${hubUrl}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : new Uint8Array(body),
      })
      let text = await upstream.text()
      if (isClaim && pending !== undefined && 'rewrite' in pending && upstream.status === 200) {
        const jobs = (JSON.parse(text) as { jobs: WireJob[] }).jobs
        if (jobs.length > 0) {
          claims.firstBatch = jobs.length
          text = JSON.stringify({ jobs: pending.rewrite(jobs) })
          pending = undefined
        }
      }
      if (req.method === 'POST' && req.url === '/v1/agent/results') {
        posted.push({ result: JSON.parse(body.toString('utf8')) as CheckResult, status: upstream.status })
      }
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' })
      res.end(text)
    })().catch((error: unknown) => {
      res.writeHead(502)
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    posted,
    claims,
    close: () => closeServer(server),
  }
}

async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  attempts = 600,
): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`gave up waiting for ${what}`)
}

interface LogLine {
  level: string
  msg: string
  runId?: string
}

describe('broken job payloads from the hub, through the real remote agent', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
    cleanups.length = 0
  })

  /** A hub with a session queued (one URL check per label, plus `good`), the mangler, the agent. */
  async function scenario(labels: string[], firstClaim: Parameters<typeof startMangler>[1]) {
    const hubDir = await mkdtemp(path.join(tmpdir(), 'outpost-payload-hub-'))
    const hub: Hub = await startHub({
      config: testHubConfig(hubDir),
    })
    const account = await hub.store.createAccount('payloads')
    const key = (await hub.store.createApiKey(account.id, 'agent')).key
    const target = await startTarget()
    const mangler = await startMangler(hub.url, firstClaim)
    const location = 'loc-payloads'
    const config = await testAgentConfig({
      SERVICE_API_URL: mangler.url,
      API_KEY: key,
      AGENT_LOCATION: location,
      AGENT_FLAVOR: 'uptime',
      UPTIME_CONCURRENCY: '100',
    })
    cleanups.push(async () => {
      await mangler.close()
      await target.close()
      await hub.close()
      await rm(hubDir, { recursive: true, force: true })
      await rm(config.dataDir, { recursive: true, force: true })
    })
    // Queued before the agent starts, so its first claim takes them all in one batch.
    const logicalIds = ['good', ...labels.map((_, i) => `case-${i}`)]
    const trigger = await fetch(`${hub.url}/v2/check-sessions/trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        location,
        checks: logicalIds.map((logicalId) => ({
          type: 'URL',
          logicalId,
          name: logicalId === 'good' ? 'good' : labels[Number(logicalId.slice(5))],
          request: urlRequest(`${target.url}/${logicalId}`),
          degradedResponseTime: 5000,
          maxResponseTime: 10000,
        })),
      }),
    })
    expect(trigger.status).toBe(201)
    const session = (await trigger.json()) as { checkSessionId: string; runIds: string[] }
    const runIdOf = new Map(logicalIds.map((id, i) => [id, session.runIds[i] as string]))

    const { log, lines } = captureLogger(createScrubber([key, AGENT_SECRET]))
    const scrubber = createScrubber([key, AGENT_SECRET])
    const executors = await createDefaultExecutors({
      config,
      log,
      scrubber,
      checks: [],
      heartbeatIngress: false,
      secretValues: [key, AGENT_SECRET],
      env: {},
    })
    const info = { id: 'payload-agent', version: '7.0.1', flavor: 'uptime' as const }
    let agent: Agent | undefined
    const parts = await createRemoteParts({
      config,
      log,
      scrubber,
      info,
      checkTypes: supportedTypes(executors.table, 'uptime'),
      waitSeconds: 1,
      backoff: FAST_BACKOFF,
      onRejectedKey: () => void agent?.stop(),
    })
    agent = await startAgent({
      config,
      log,
      scrubber,
      source: parts.source,
      executors: executors.table,
      info,
      sink: parts.sink,
    })
    const running = agent
    cleanups.unshift(async () => {
      await running.stop()
      await parts.close(100)
      await executors.close()
    })
    const logLines = (): LogLine[] => lines().map((line) => JSON.parse(line) as LogLine)
    const ready = async (): Promise<number> =>
      (await fetch(`http://127.0.0.1:${running.healthPort}/-/readiness`)).status
    return { hub, key, session, runIdOf, target, mangler, agent: running, logLines, ready }
  }

  const byKind = <K extends PayloadCase['kind']>(kind: K) =>
    cases.filter((c): c is Extract<PayloadCase, { kind: K }> => c.kind === kind)

  it('answers each broken job with a failed result naming the field; the rest of the batch runs', async () => {
    const batch = [...byKind('rejected'), ...byKind('runs')]
    const s = await scenario(
      batch.map((c) => c.label),
      {
        rewrite: (jobs) =>
          jobs.map((job) => {
            const index = /^case-(\d+)$/.exec(String(job.check.logicalId))?.[1]
            return index === undefined ? job : (batch[Number(index)] as RejectedCase | RunsCase).mangle(job)
          }),
      },
    )
    const runIds = [...s.runIdOf.values()]
    await until(() => s.mangler.posted.length >= runIds.length, 'a result for every job of the batch')
    expect(s.mangler.claims.firstBatch).toBe(runIds.length)

    const good = s.mangler.posted.find((p) => p.result.id === s.runIdOf.get('good'))
    expect(good?.result.status).toBe('passed')
    expect(good?.status).toBe(201)
    expect(s.target.hits.get('/good')).toBe(1)
    const warnings = s.logLines().filter((l) => l.level === 'warn')
    batch.forEach((c, i) => {
      const runId = s.runIdOf.get(`case-${i}`)
      const posted = s.mangler.posted.filter((p) => p.result.id === runId)
      expect(posted, c.label).toHaveLength(1)
      const [{ result, status }] = posted as [Posted]
      expect(status, `${c.label}: the hub accepts the result`).toBe(201)
      if (c.kind === 'runs') {
        expect(result.status, c.label).toBe('passed')
        expect(result.name, c.label).toBe(c.name)
        expect(s.target.hits.get(`/case-${i}`), c.label).toBe(1)
        return
      }
      expect(result.status, c.label).toBe('failed')
      expect(result.error?.code, c.label).toBe('INVALID_JOB')
      expect(result.error?.message, c.label).toContain(c.error)
      // Not run: its target was never asked (nor a retry's).
      expect(s.target.hits.get(`/case-${i}`), c.label).toBeUndefined()
      expect(s.target.hits.get(`/case-${i}/fail`), c.label).toBeUndefined()
      const warned = warnings.filter((l) => l.runId === runId && l.msg.includes('invalid job from the hub'))
      expect(warned, c.label).toHaveLength(1)
      expect(warned[0]?.msg, c.label).toContain(c.error)
    })
    expect(JSON.stringify(s.mangler.posted)).not.toContain('env-value-never-shown')

    // The session completes (no run is left to expire), and nothing more is posted afterwards.
    let completion: Response | undefined
    await until(async () => {
      completion = await fetch(
        `${s.hub.url}/v2/check-sessions/${s.session.checkSessionId}/completion?maxWaitSeconds=1`,
        { headers: { authorization: `Bearer ${s.key}` } },
      )
      return completion.status === 200
    }, 'the session to complete')
    expect(await completion?.json()).toBe('FAILED')
    const claimsSoFar = s.mangler.claims.count
    await until(() => s.mangler.claims.count >= claimsSoFar + 2, 'two more claims')
    expect(s.mangler.posted).toHaveLength(runIds.length)
    expect(new Set(s.mangler.posted.map((p) => p.result.id))).toEqual(new Set(runIds))
    expect(await s.ready()).toBe(200)
    expect(s.agent.lifecycle.state()).toBe('ready')
  })

  it('skips a job without a usable run id with a warning naming the field; the rest of the batch runs', async () => {
    const batch = byKind('unidentified')
    const s = await scenario(
      batch.map((c) => c.label),
      {
        rewrite: (jobs) => {
          const mangled = jobs.map((job) => {
            const index = /^case-(\d+)$/.exec(String(job.check.logicalId))?.[1]
            return index === undefined ? job : (batch[Number(index)] as UnidentifiedCase).mangle(job)
          })
          // The good job twice: the second copy (pointing elsewhere) is a duplicate, not a second run.
          const good = jobs.find((job) => job.check.logicalId === 'good') as WireJob
          return [
            ...mangled,
            withRequest(good, { url: `${String((good.check.request as { url: string }).url)}-copy` }),
          ]
        },
      },
    )
    const goodRun = s.runIdOf.get('good')
    await until(() => s.mangler.posted.length >= 1, 'the good job to report')
    const warnings = s.logLines().filter((l) => l.level === 'warn')
    for (const c of batch) {
      const warned = warnings.filter((l) => l.msg.includes(c.log))
      expect(warned, c.label).toHaveLength(1)
      expect(warned[0]?.msg, c.label).toContain('job without a usable run id from the hub, skipped')
    }
    expect(warnings.filter((l) => l.msg.includes(`run ${goodRun} came twice`))).toHaveLength(1)
    const claimsSoFar = s.mangler.claims.count
    await until(() => s.mangler.claims.count >= claimsSoFar + 2, 'two more claims')
    expect(s.mangler.posted.map((p) => [p.result.id, p.result.status, p.status])).toEqual([
      [goodRun, 'passed', 201],
    ])
    expect(s.target.hits.get('/good')).toBe(1)
    expect(s.target.hits.get('/good-copy')).toBeUndefined()
    batch.forEach((_, i) => {
      expect(s.target.hits.get(`/case-${i}`)).toBeUndefined()
    })
    expect(await s.ready()).toBe(200)
  })

  it.each(byKind('envelope').map((c) => [c.label, c] as const))(
    'retries a claim answered with %s, naming what it got',
    async (_label, c) => {
      const s = await scenario([], { answer: c.answer })
      await until(() => s.mangler.posted.length >= 1, 'the good job, claimed after the retry, to report')
      const failed = s.logLines().filter((l) => l.level === 'warn' && l.msg.startsWith('job claim failed'))
      expect(failed).toHaveLength(1)
      expect(failed[0]?.msg).toContain(c.log)
      expect(s.mangler.posted.map((p) => [p.result.id, p.result.status, p.status])).toEqual([
        [s.runIdOf.get('good'), 'passed', 201],
      ])
      expect(await s.ready()).toBe(200)
    },
  )
})
