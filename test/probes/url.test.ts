import { mkdtempSync, rmSync } from 'node:fs'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUrlProbe, DEFAULT_URL_ASSERTION, URL_LIMITS } from '../../src/probes/url.ts'
import { loopbackLookup, sampleZone, startDnsServer, type TestDnsServer } from './dns-fixtures.ts'
import {
  makeSelfSignedCert,
  probeContext,
  type SelfSignedCert,
  startHttpServer,
  startHttpsServer,
  type TestServer,
  urlMonitor,
} from './url-fixtures.ts'

const runDir = mkdtempSync(path.join(tmpdir(), 'outpost-url-test-'))
const probe = createUrlProbe()
const ctx = () => probeContext(runDir)

let server: TestServer
let other: TestServer
let cert: SelfSignedCert
let tlsServer: TestServer
let dnsServer: TestDnsServer

beforeAll(async () => {
  server = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    switch (url.pathname) {
      case '/ok':
        res.setHeader('X-Service', 'probe-target')
        res.setHeader('Content-Type', 'application/json')
        res.end(JSON.stringify({ status: 'up', items: [1, 2, 3] }))
        return
      case '/error':
        res.statusCode = 503
        res.end(`down: ${'e'.repeat(10_000)}`)
        return
      case '/redirect': {
        const hops = Number(url.searchParams.get('hops') ?? '1')
        res.statusCode = 302
        res.setHeader('Location', hops > 1 ? `/redirect?hops=${hops - 1}` : '/ok')
        res.end()
        return
      }
      case '/cross-origin':
        res.statusCode = 307
        res.setHeader('Location', `${other.origin}/echo`)
        res.end()
        return
      case '/slow':
        setTimeout(() => res.end('late'), Number(url.searchParams.get('ms')))
        return
      case '/big':
        res.setHeader('Content-Type', 'text/plain')
        res.end(Buffer.alloc(3 * 1024 * 1024, 'a'))
        return
      case '/hang':
        return
      case '/reset':
        req.socket.destroy()
        return
      default:
        res.statusCode = 404
        res.end('not found')
    }
  })
  other = await startHttpServer((_req, res) => res.end('other origin'), '127.0.0.2')
  cert = makeSelfSignedCert(30)
  tlsServer = await startHttpsServer((_req, res) => res.end('secure'), cert)
  dnsServer = await startDnsServer({ zone: sampleZone() })
})

afterAll(async () => {
  await Promise.all([server.close(), other.close(), tlsServer.close(), dnsServer.close()])
  rmSync(runDir, { recursive: true, force: true })
})

describe('URL probe against a loopback HTTP server', () => {
  it('passes a 200 with the default assertion and reports every phase', async () => {
    const outcome = await probe(urlMonitor(`${server.origin}/ok`), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.assertions).toEqual([
      { source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '400', actual: 200, passed: true },
    ])
    const t = outcome.timings
    expect(t).toBeDefined()
    expect(t?.dns).toBe(0)
    expect(t?.tls).toBe(0)
    expect(t?.connect).toBeGreaterThan(0)
    expect(t?.firstByte).toBeGreaterThan(0)
    expect(t?.download).toBeGreaterThanOrEqual(0)
    const sum = (t?.connect ?? 0) + (t?.firstByte ?? 0) + (t?.download ?? 0)
    expect(outcome.responseTimeMs).toBeGreaterThanOrEqual(sum)
    expect(outcome.details).toMatchObject({ statusCode: 200, remoteAddress: '127.0.0.1', ipFamily: 'IPv4' })
    expect(outcome.details?.bodyExcerpt).toBeUndefined()
  })

  it('sends no header the user did not ask for', async () => {
    const before = server.requests.length
    await probe(
      urlMonitor(`${server.origin}/ok?x=1`, { headers: [{ key: 'X-Api-Version', value: '7' }] }),
      ctx(),
    )
    const received = server.requests.slice(before)
    expect(received).toHaveLength(1)
    const names = received[0]?.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase())
    expect(names).toEqual(['host', 'connection', 'x-api-version'])
    expect(received[0]?.rawHeaders).toContain('7')
    expect(received[0]?.url).toBe('/ok?x=1')
  })

  it('opens a fresh connection for every run', async () => {
    const ports = new Set<number>()
    const local = await startHttpServer((req, res) => {
      ports.add(req.socket.remotePort ?? 0)
      res.end('x')
    })
    try {
      for (let i = 0; i < 3; i++) await probe(urlMonitor(`${local.origin}/`), ctx())
      expect(ports.size).toBe(3)
    } finally {
      await local.close()
    }
  })

  it('fails on a 5xx and keeps only a 2 KiB excerpt of the body', async () => {
    const outcome = await probe(urlMonitor(`${server.origin}/error`), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('ASSERTION_FAILED')
    expect(outcome.error?.message).toContain('STATUS_CODE LESS_THAN "400" failed: actual 503')
    const excerpt = outcome.details?.bodyExcerpt as string
    expect(excerpt.startsWith('down: eee')).toBe(true)
    expect(Buffer.byteLength(excerpt)).toBe(URL_LIMITS.excerptBytes)
  })

  it('evaluates status, header, text body, JSON body and response time assertions', async () => {
    const assertions = [
      { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', regex: null },
      { source: 'HEADERS', property: 'X-Service', comparison: 'EQUALS', target: 'probe-target', regex: null },
      { source: 'HEADERS', property: '', comparison: 'HAS_KEY', target: 'Content-Type', regex: null },
      {
        source: 'HEADERS',
        property: 'content-type',
        comparison: 'EQUALS',
        target: 'json',
        regex: '/(\\w+)$',
      },
      { source: 'TEXT_BODY', property: '', comparison: 'CONTAINS', target: '"status":"up"', regex: null },
      { source: 'JSON_BODY', property: '$.items[2]', comparison: 'EQUALS', target: '3', regex: null },
      { source: 'RESPONSE_TIME', property: '', comparison: 'LESS_THAN', target: '60000', regex: null },
      { source: 'TEXT_BODY', property: '', comparison: 'NOT_CONTAINS', target: 'up', regex: null },
    ]
    const outcome = await probe(urlMonitor(`${server.origin}/ok`, { assertions }), ctx())
    expect(outcome.assertions.map((a) => a.passed)).toEqual([true, true, true, true, true, true, true, false])
    expect(outcome.assertions[3]?.actual).toBe('json')
    expect(outcome.status).toBe('failed')
    expect(outcome.error).toEqual({
      code: 'ASSERTION_FAILED',
      message: expect.stringContaining('TEXT_BODY NOT_CONTAINS "up" failed'),
    })
  })

  it('an unknown assertion source fails the run with a reason', async () => {
    const assertions = [
      { source: 'TLS_VERSION', property: '', comparison: 'EQUALS', target: '1.3', regex: null },
    ]
    const outcome = await probe(urlMonitor(`${server.origin}/ok`, { assertions }), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.message).toContain("assertion source 'TLS_VERSION' is not supported here")
  })

  it('follows redirects, or reports the 3xx when told not to', async () => {
    const followed = await probe(urlMonitor(`${server.origin}/redirect?hops=3`), ctx())
    expect(followed.status).toBe('passed')
    expect(followed.details?.statusCode).toBe(200)
    expect(followed.details?.url).toBe(`${server.origin}/ok`)
    expect(followed.details?.redirects).toHaveLength(3)

    const assertions = [
      { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '302', regex: null },
    ]
    const kept = await probe(
      urlMonitor(`${server.origin}/redirect?hops=3`, { followRedirects: false, assertions }),
      ctx(),
    )
    expect(kept.status).toBe('passed')
    expect(kept.details?.redirects).toBeUndefined()
  })

  it('stops after too many redirects', async () => {
    const outcome = await probe(urlMonitor(`${server.origin}/redirect?hops=50`), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('TOO_MANY_REDIRECTS')
  })

  it('does not carry credentials to another origin on redirect', async () => {
    const before = other.requests.length
    const headers = [
      { key: 'Authorization', value: 'Bearer s3cr3t-token' },
      { key: 'X-Trace-Me', value: 'no' },
    ]
    const outcome = await probe(urlMonitor(`${server.origin}/cross-origin`, { headers }), ctx())
    expect(outcome.status).toBe('passed')
    const received = other.requests.slice(before)[0]
    const names = received?.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase())
    expect(names).toEqual(['host', 'connection', 'x-trace-me'])
  })

  it('HEAD requests read no body', async () => {
    const outcome = await probe(urlMonitor(`${server.origin}/ok`, { method: 'HEAD' }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.details?.bodyBytes).toBe(0)
    expect(server.requests.at(-1)?.method).toBe('HEAD')
  })

  it('reads at most 1 MiB of body', async () => {
    const outcome = await probe(urlMonitor(`${server.origin}/big`), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.details).toMatchObject({ bodyBytes: URL_LIMITS.maxBodyBytes, bodyTruncated: true })
  })

  it('is degraded above degradedResponseTime and failed above maxResponseTime', async () => {
    const degraded = await probe(
      urlMonitor(`${server.origin}/slow?ms=150`, {}, { degradedResponseTime: 50, maxResponseTime: 10_000 }),
      ctx(),
    )
    expect(degraded.status).toBe('degraded')
    expect(degraded.error).toBeUndefined()
    expect(degraded.responseTimeMs).toBeGreaterThanOrEqual(150)

    const failed = await probe(
      urlMonitor(`${server.origin}/slow?ms=2000`, {}, { degradedResponseTime: 50, maxResponseTime: 200 }),
      ctx(),
    )
    expect(failed.status).toBe('failed')
    expect(failed.error?.code).toBe('TIMEOUT')
    expect(failed.error?.message).toMatch(
      /^timed out after \d+ ms \(maxResponseTime 200 ms\) during sending the request \(127\.0\.0\.1:\d+\)$/,
    )
    expect(failed.responseTimeMs).toBeGreaterThanOrEqual(200)
  })

  it('reports a refused connection', async () => {
    const closed = await startHttpServer(() => {})
    const url = `${closed.origin}/`
    await closed.close()
    const outcome = await probe(urlMonitor(url), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('CONNECTION_REFUSED')
    expect(outcome.error?.message).toContain(`connection refused by 127.0.0.1:${closed.port}`)
    expect(outcome.details?.phase).toBe('connect')
    expect(outcome.artifacts).toBeUndefined()
  })

  it('reports a connection reset', async () => {
    const outcome = await probe(urlMonitor(`${server.origin}/reset`), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('CONNECTION_RESET')
  })

  it('returns a TIMEOUT promptly when the job is aborted', async () => {
    const controller = new AbortController()
    const pending = probe(
      urlMonitor(`${server.origin}/hang`, {}, { maxResponseTime: 0 }),
      probeContext(runDir, controller.signal),
    )
    setTimeout(() => controller.abort(new Error('job timeout')), 100)
    const outcome = await pending
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('TIMEOUT')
    expect(outcome.error?.message).toContain('the job was stopped')
  })

  it('says which field is wrong for a bad URL or method', async () => {
    const bad = await probe(urlMonitor('ftp://127.0.0.1/'), ctx())
    expect(bad.error).toEqual({
      code: 'INVALID_REQUEST',
      message: "request.url 'ftp://127.0.0.1/' uses ftp: (allowed: http:, https:)",
    })
    const method = await probe(urlMonitor(`${server.origin}/ok`, { method: 'POST' as 'GET' }), ctx())
    expect(method.error?.message).toBe("request.method 'POST' is not allowed for URL monitors (GET, HEAD)")
  })

  it('a header value undici refuses to send is a bad request, and leaks no socket', async () => {
    const before = server.requests.length
    const outcome = await probe(
      urlMonitor(`${server.origin}/ok`, { headers: [{ key: 'X-Bad', value: 'a\r\nInjected: yes' }] }),
      ctx(),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('INVALID_REQUEST')
    expect(outcome.error?.message).toContain('cannot be sent as given')
    expect(server.requests.length).toBe(before)
    // The connection was opened before undici refused the header; it must be closed, not leaked.
    for (let i = 0; i < 100 && server.openConnections() > 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(server.openConnections()).toBe(0)
  })

  it('exports the default assertion it applies', () => {
    expect(DEFAULT_URL_ASSERTION).toMatchObject({
      source: 'STATUS_CODE',
      comparison: 'LESS_THAN',
      target: '400',
    })
  })
})

describe('URL probe over IPv6 and name lookup', () => {
  it('reaches an IPv6 loopback server', async () => {
    const v6 = await startHttpServer((_req, res) => res.end('six'), '::1')
    try {
      const outcome = await probe(urlMonitor(`${v6.origin}/`, { ipFamily: 'IPv6' }), ctx())
      expect(outcome.status).toBe('passed')
      expect(outcome.details).toMatchObject({ remoteAddress: '::1', ipFamily: 'IPv6' })
    } finally {
      await v6.close()
    }
  })

  it('times the lookup of a host name', async () => {
    const named = createUrlProbe({ lookup: loopbackLookup(dnsServer.port) })
    const outcome = await named(urlMonitor(`http://example.test:${server.port}/ok`), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.timings?.dns).toBeGreaterThan(0)
    expect(server.requests.at(-1)?.rawHeaders).toContain(`example.test:${server.port}`)
  })

  it('reports a name that does not exist', async () => {
    const named = createUrlProbe({ lookup: loopbackLookup(dnsServer.port) })
    const outcome = await named(urlMonitor(`http://missing.example.test:${server.port}/`), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('DNS_NXDOMAIN')
    expect(outcome.details?.phase).toBe('dns')
    expect(outcome.timings?.dns).toBeGreaterThan(0)
  })
})

describe('URL probe over HTTPS (self-signed)', () => {
  it('with skipSSL passes and reports the certificate expiry and the TLS phase', async () => {
    const outcome = await probe(urlMonitor(`${tlsServer.origin}/`, { skipSSL: true }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.timings?.tls).toBeGreaterThan(0)
    const tls = outcome.details?.tls as Record<string, unknown>
    expect(tls.subject).toBe('localhost')
    expect(tls.authorized).toBe(false)
    expect(tls.authorizationError).toBe('DEPTH_ZERO_SELF_SIGNED_CERT')
    expect(tls.validTo).toBe(cert.notAfter.toISOString())
    expect(tls.daysRemaining).toBeGreaterThanOrEqual(29)
    expect(tls.daysRemaining).toBeLessThanOrEqual(30)
  })

  it('without skipSSL fails with TLS_ERROR', async () => {
    const outcome = await probe(urlMonitor(`${tlsServer.origin}/`, { skipSSL: false }), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('TLS_ERROR')
    expect(outcome.error?.message).toContain('DEPTH_ZERO_SELF_SIGNED_CERT')
    expect(outcome.details?.phase).toBe('tls')
  })

  it('a TLS server that never finishes the handshake times out in the tls phase', async () => {
    const net = await import('node:net')
    const sockets: Socket[] = []
    const mute = net.createServer((socket) => sockets.push(socket))
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve))
    const port = (mute.address() as { port: number }).port
    try {
      const outcome = await probe(
        urlMonitor(`https://127.0.0.1:${port}/`, { skipSSL: true }, { maxResponseTime: 300 }),
        ctx(),
      )
      expect(outcome.error?.code).toBe('TIMEOUT')
      expect(outcome.details?.phase).toBe('tls')
      expect(outcome.timings?.tls).toBeGreaterThanOrEqual(290)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => mute.close(() => resolve()))
    }
  })
})
