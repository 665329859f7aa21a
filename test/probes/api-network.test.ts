import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNetworkDiagnostics } from '../../src/probes/diagnostics/network-diagnostics.ts'
import { apiCheck, apiProbe, tempRunDir } from './api-fixtures.ts'
import { makeSelfSignedCert, probeContext, startHttpServer, startHttpsServer } from './url-fixtures.ts'

/** Capturing and TCP traceroute need root (CI runs as root); without it that test cannot run. */
const isRoot = process.getuid?.() === 0
let closedPort: number
let run: ReturnType<typeof tempRunDir>

beforeAll(async () => {
  const server = await startHttpServer(() => {})
  closedPort = server.port
  await server.close()
  run = tempRunDir('network')
})
afterAll(() => run.remove())

describe('API probe: network failures', () => {
  it('a refused connection fails with CONNECTION_REFUSED, its phase and timings', async () => {
    const outcome = await apiProbe()(
      apiCheck({
        url: `http://127.0.0.1:${closedPort}/orders`,
        method: 'POST',
        body: '{}',
        bodyType: 'JSON',
      }),
      probeContext(run.dir),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('CONNECTION_REFUSED')
    expect(outcome.details).toMatchObject({ phase: 'connect', method: 'POST', remoteAddress: '127.0.0.1' })
    expect(outcome.timings?.connect).toBeGreaterThan(0)
    expect(outcome.assertions).toEqual([])
  })

  it.skipIf(!isRoot)('attaches a header-only capture and a TCP traceroute, as URL monitors do', async () => {
    const dir = `${run.dir}/diagnostics`
    const outcome = await apiProbe({ diagnostics: createNetworkDiagnostics() })(
      apiCheck({ url: `http://127.0.0.1:${closedPort}/orders` }),
      probeContext(dir),
    )
    expect(outcome.error?.code).toBe('CONNECTION_REFUSED')
    expect(outcome.artifacts?.map((a) => a.kind).sort()).toEqual(['pcap', 'traceroute'])
    for (const artifact of outcome.artifacts ?? []) {
      const content = readFileSync(artifact.location)
      expect(artifact.location.startsWith(dir)).toBe(true)
      expect(content.length).toBe(artifact.size)
      expect(createHash('sha256').update(content).digest('hex')).toBe(artifact.sha256)
    }
    const trace = readFileSync(
      outcome.artifacts?.find((a) => a.kind === 'traceroute')?.location ?? '',
      'utf8',
    )
    expect(trace).toContain(`-T -p ${closedPort}`)
    const diagnostics = outcome.details?.diagnostics as { summary: string }
    expect(diagnostics.summary).toMatch(
      /re-attempt: TCP connect to 127\.0\.0\.1:\d+ failed after \d+ ms: ECONNREFUSED/,
    )
  })

  it('a server that never answers fails at maxResponseTime, naming it', async () => {
    const silent = await startHttpServer(() => {})
    try {
      const outcome = await apiProbe()(
        apiCheck({ url: `${silent.origin}/slow` }, { degradedResponseTime: 100, maxResponseTime: 300 }),
        probeContext(run.dir),
      )
      expect(outcome.error?.code).toBe('TIMEOUT')
      expect(outcome.error?.message).toContain('(maxResponseTime 300 ms)')
    } finally {
      await silent.close()
    }
  })

  it('HTTPS: a self-signed certificate is TLS_ERROR unless skipSSL; redirects are followed and timed', async () => {
    const secure = await startHttpsServer((req, res) => {
      if (req.url === '/old') {
        res.writeHead(301, { location: '/new' })
        res.end()
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    }, makeSelfSignedCert(30))
    try {
      const refused = await apiProbe()(apiCheck({ url: `${secure.origin}/old` }), probeContext(run.dir))
      expect(refused.error?.code).toBe('TLS_ERROR')
      const outcome = await apiProbe()(
        apiCheck({ url: `${secure.origin}/old`, skipSSL: true }),
        probeContext(run.dir),
      )
      expect(outcome.status).toBe('passed')
      expect(outcome.details).toMatchObject({
        url: `${secure.origin}/new`,
        redirects: [{ url: `${secure.origin}/old`, statusCode: 301, location: '/new' }],
        tls: expect.objectContaining({ subject: expect.anything() }),
      })
      expect(outcome.timings?.tls).toBeGreaterThan(0)
    } finally {
      await secure.close()
    }
  })
})
