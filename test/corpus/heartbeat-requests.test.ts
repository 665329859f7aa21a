// Malformed heartbeat pings against the real ingress (fastify on loopback) and its real state file:
// each gets its specific status and answer; the one known token's state changes only by the valid
// pings; the state file stays whole JSON; the server keeps answering.

import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHeartbeatServer, type HeartbeatServer } from '../../src/heartbeat/server.ts'
import { HEARTBEAT_STATE_FILE, type HeartbeatStore, openHeartbeatStore } from '../../src/heartbeat/store.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'

const TOKEN = 'corpus-heartbeat-token'
const SECRET = 'hb-corpus-secret-0c4d'
const MAX_REQUEST = 64 * 1024

interface PingCase {
  label: string
  method: string
  path: string
  body?: string | Buffer
  status: number
  answer: RegExp
}

const long = (n: number): string => 'a'.repeat(n)

const cases: PingCase[] = [
  // Tokens: anything unknown is 404, whatever it holds.
  { label: 'unknown token', method: 'GET', path: '/ping/no-such-token', status: 404, answer: /^not found$/ },
  { label: 'NUL in token', method: 'GET', path: '/ping/abc%00def', status: 404, answer: /^not found$/ },
  {
    label: 'script in token',
    method: 'GET',
    path: `/ping/${encodeURIComponent('<script>alert(1)</script>')}`,
    status: 404,
    answer: /^not found$/,
  },
  {
    label: 'SQL in token',
    method: 'GET',
    path: `/ping/${encodeURIComponent("'; DROP TABLE pings; --")}`,
    status: 404,
    answer: /^not found$/,
  },
  {
    label: 'traversal in token',
    method: 'GET',
    path: '/ping/..%2F..%2Fetc%2Fpasswd',
    status: 404,
    answer: /^not found$/,
  },
  {
    label: 'template in token',
    method: 'GET',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the injection is this literal text.
    path: `/ping/${encodeURIComponent('${process.exit()}')}`,
    status: 404,
    answer: /^not found$/,
  },
  {
    label: 'emoji token',
    method: 'GET',
    path: `/ping/${encodeURIComponent('🔥💥')}`,
    status: 404,
    answer: /^not found$/,
  },
  {
    label: '128-character token (the longest allowed)',
    method: 'GET',
    path: `/ping/${long(128)}`,
    status: 404,
    answer: /^not found$/,
  },
  {
    label: '10k-character token',
    method: 'GET',
    path: `/ping/${long(10_000)}`,
    status: 404,
    answer: /^not found$/,
  },

  { label: 'bad percent-encoding', method: 'GET', path: '/ping/%E0%A4%A', status: 400, answer: /./ },
  // Exit status.
  {
    label: 'exit status 256',
    method: 'GET',
    path: `/ping/${TOKEN}/256`,
    status: 400,
    answer: /^invalid exit status 256: allowed 0 to 255$/,
  },
  {
    label: 'exit status beyond any integer',
    method: 'GET',
    path: `/ping/${TOKEN}/${'9'.repeat(60)}`,
    status: 400,
    answer: /^invalid exit status 9{60}: allowed 0 to 255$/,
  },
  {
    label: 'negative exit status',
    method: 'GET',
    path: `/ping/${TOKEN}/-1`,
    status: 404,
    answer: /^not found$/,
  },
  {
    label: 'unknown action',
    method: 'GET',
    path: `/ping/${TOKEN}/explode`,
    status: 404,
    answer: /^not found$/,
  },
  // Run ids.
  {
    label: 'rid not a UUID',
    method: 'GET',
    path: `/ping/${TOKEN}/start?rid=not-a-uuid`,
    status: 400,
    answer: /^invalid rid: it must be a UUID$/,
  },
  {
    label: 'rid with SQL',
    method: 'GET',
    path: `/ping/${TOKEN}?rid=${encodeURIComponent("' OR 1=1 --")}`,
    status: 400,
    answer: /^invalid rid: it must be a UUID$/,
  },
  {
    label: 'rid twice',
    method: 'GET',
    path: `/ping/${TOKEN}?rid=${randomUUID()}&rid=${randomUUID()}`,
    status: 400,
    answer: /^invalid rid: it must be a UUID$/,
  },
  // Methods.
  { label: 'PUT', method: 'PUT', path: `/ping/${TOKEN}`, body: 'x', status: 404, answer: /not found/ },
  { label: 'DELETE', method: 'DELETE', path: `/ping/${TOKEN}`, status: 404, answer: /not found/ },
  { label: 'PATCH', method: 'PATCH', path: `/ping/${TOKEN}`, body: 'x', status: 404, answer: /not found/ },
  // Bodies.
  {
    label: 'body over the request limit',
    method: 'POST',
    path: `/ping/${TOKEN}`,
    body: Buffer.alloc(MAX_REQUEST + 1, 0x41),
    status: 413,
    answer: /^ping body over 65536 bytes$/,
  },
]

function send(
  base: URL,
  c: Pick<PingCase, 'method' | 'path' | 'body'>,
): Promise<{ status: number; body: string }> {
  // node:http rather than fetch: fetch refuses some of these paths and methods before sending them.
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: c.method,
        path: c.path,
        headers: { 'content-type': 'text/plain' },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (d: Buffer) => chunks.push(d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
      },
    )
    req.on('error', reject)
    req.end(c.body)
  })
}

describe('corpus: malformed heartbeat requests', () => {
  let dataDir: string
  let store: HeartbeatStore
  let server: HeartbeatServer
  let base: URL
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-hb-corpus-'))
    store = await openHeartbeatStore({ dataDir })
    await store.register({ pingToken: TOKEN, logicalId: 'corpus-heartbeat' })
    server = createHeartbeatServer({
      store,
      scrubber: createScrubber([SECRET]),
      log: pino({ level: 'silent' }),
      port: 0,
      host: '127.0.0.1',
      maxRequestBytes: MAX_REQUEST,
    })
    base = new URL((await server.listen()).url)
  })
  afterAll(async () => {
    await server.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it.each(cases.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    const before = store.get(TOKEN)
    const answer = await send(base, c)
    expect(answer.status).toBe(c.status)
    expect(answer.body).toMatch(c.answer)
    // A refused ping changes nothing.
    expect(store.get(TOKEN)).toEqual(before)
  })

  it('a valid ping still records; a huge allowed body is cut to the limit and scrubbed; the file is whole JSON', async () => {
    const body = `${SECRET} ${'x'.repeat(40_000)}`
    const ok = await send(base, { method: 'POST', path: `/ping/${TOKEN}/0?rid=${randomUUID()}`, body })
    expect(ok).toEqual({ status: 200, body: 'OK' })
    await store.flush()
    const file = JSON.parse(
      await readFile(path.join(dataDir, 'heartbeats', HEARTBEAT_STATE_FILE), 'utf8'),
    ) as {
      states: Record<string, { lastPingAt: number | null; lastPings?: unknown }>
    }
    expect(file.states[TOKEN]!.lastPingAt).toBeGreaterThan(0)
    const text = JSON.stringify(file)
    expect(text).not.toContain(SECRET)
    expect(text.length).toBeLessThan(40_000)
  })
})
