import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Assertion } from '../../src/model/checks.ts'
import { createTcpProbe, TCP_LIMITS } from '../../src/probes/tcp.ts'
import { loopbackLookup, sampleZone, startDnsServer, type TestDnsServer } from './dns-fixtures.ts'
import { tcpMonitor } from './tcp-fixtures.ts'
import { probeContext } from './url-fixtures.ts'

const runDir = mkdtempSync(path.join(tmpdir(), 'outpost-tcp-test-'))
const probe = createTcpProbe()
const ctx = () => probeContext(runDir)

const assertion = (
  source: string,
  comparison: string,
  target: string,
  regex: string | null = null,
): Assertion => ({
  source,
  property: '',
  comparison,
  target,
  regex,
})

interface TcpServer {
  port: number
  connections: number
  close(): Promise<void>
}

/** A TCP server whose behaviour per connection the test chooses. */
async function startTcpServer(
  onConnection: (socket: net.Socket) => void,
  host = '127.0.0.1',
): Promise<TcpServer> {
  const sockets = new Set<net.Socket>()
  const state = { connections: 0 }
  const server = net.createServer((socket) => {
    state.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    onConnection(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return state.connections
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

let echo: TcpServer
let dnsServer: TestDnsServer

beforeAll(async () => {
  echo = await startTcpServer((socket) => socket.pipe(socket))
  dnsServer = await startDnsServer({ zone: sampleZone() })
})

afterAll(async () => {
  await Promise.all([echo.close(), dnsServer.close()])
  rmSync(runDir, { recursive: true, force: true })
})

describe('TCP probe', () => {
  it('passes on a bare connect and times it', async () => {
    const before = echo.connections
    const outcome = await probe(tcpMonitor({ port: echo.port }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.timings?.connect).toBeGreaterThan(0)
    expect(outcome.responseTimeMs).toBeGreaterThanOrEqual(outcome.timings?.connect ?? 0)
    expect(outcome.details).toMatchObject({ remoteAddress: '127.0.0.1', ipFamily: 'IPv4', bytesSent: 0 })
    expect(echo.connections).toBe(before + 1)
  })

  it('sends data and asserts on the echoed reply', async () => {
    const outcome = await probe(
      tcpMonitor({
        port: echo.port,
        data: 'PING outpost\n',
        assertions: [
          assertion('RESPONSE_DATA', 'CONTAINS', 'PING'),
          assertion('RESPONSE_DATA', 'EQUALS', 'outpost', 'PING (\\w+)'),
          assertion('RESPONSE_TIME', 'LESS_THAN', '60000'),
        ],
      }),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
    expect(outcome.assertions.map((a) => a.actual)).toEqual([
      'PING outpost\n',
      'outpost',
      outcome.responseTimeMs,
    ])
    expect(outcome.details).toMatchObject({ bytesSent: 13, bytesReceived: 13, closedByPeer: false })
    expect(outcome.timings?.firstByte).toBeGreaterThan(0)
  })

  it('fails a reply assertion and keeps an excerpt of the reply', async () => {
    const outcome = await probe(
      tcpMonitor({
        port: echo.port,
        data: 'hello',
        assertions: [assertion('RESPONSE_DATA', 'EQUALS', 'bye')],
      }),
      ctx(),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error).toEqual({
      code: 'ASSERTION_FAILED',
      message: 'RESPONSE_DATA EQUALS "bye" failed: actual "hello"',
    })
    expect(outcome.details?.replyExcerpt).toBe('hello')
  })

  it('without data there is no reply: RESPONSE_DATA is null', async () => {
    const outcome = await probe(
      tcpMonitor({ port: echo.port, assertions: [assertion('RESPONSE_DATA', 'IS_NULL', '')] }),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
  })

  it('reads a reply until the server closes, and stops at 64 KiB', async () => {
    const banner = await startTcpServer((socket) => socket.once('data', () => socket.end('220 ready\r\n')))
    const flood = await startTcpServer((socket) =>
      socket.once('data', () => socket.end(Buffer.alloc(200_000, 'z'))),
    )
    try {
      const closed = await probe(tcpMonitor({ port: banner.port, data: 'HELO\r\n' }), ctx())
      expect(closed.status).toBe('passed')
      expect(closed.details).toMatchObject({ bytesReceived: 11, closedByPeer: true, replyTruncated: false })
      const capped = await probe(tcpMonitor({ port: flood.port, data: 'go' }), ctx())
      expect(capped.status).toBe('passed')
      expect(capped.details).toMatchObject({ bytesReceived: TCP_LIMITS.maxReplyBytes, replyTruncated: true })
    } finally {
      await Promise.all([banner.close(), flood.close()])
    }
  })

  it('reports a refused connection', async () => {
    const gone = await startTcpServer(() => {})
    await gone.close()
    const outcome = await probe(tcpMonitor({ port: gone.port }), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error).toEqual({
      code: 'CONNECTION_REFUSED',
      message: `connection refused by 127.0.0.1:${gone.port} (nothing listening on the port)`,
    })
  })

  it('reports a reset when the server drops the connection on our data', async () => {
    const rude = await startTcpServer((socket) => socket.once('data', () => socket.resetAndDestroy()))
    try {
      const outcome = await probe(tcpMonitor({ port: rude.port, data: 'hi' }), ctx())
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('CONNECTION_RESET')
      expect(outcome.error?.message).toContain('connection reset by')
    } finally {
      await rude.close()
    }
  })

  it('times out when no reply comes', async () => {
    const mute = await startTcpServer(() => {})
    try {
      const outcome = await probe(
        tcpMonitor({ port: mute.port, data: 'anyone?' }, { maxResponseTime: 300 }),
        ctx(),
      )
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('TIMEOUT')
      expect(outcome.error?.message).toMatch(/^no reply to the data sent within \d+ ms/)
    } finally {
      await mute.close()
    }
  })

  it('is degraded when the reply is slow', async () => {
    const slow = await startTcpServer((socket) =>
      socket.once('data', () => setTimeout(() => socket.end('ok'), 150)),
    )
    try {
      const outcome = await probe(
        tcpMonitor({ port: slow.port, data: 'x' }, { degradedResponseTime: 50, maxResponseTime: 5000 }),
        ctx(),
      )
      expect(outcome.status).toBe('degraded')
      expect(outcome.responseTimeMs).toBeGreaterThanOrEqual(150)
    } finally {
      await slow.close()
    }
  })

  it('returns promptly when the job is aborted', async () => {
    const mute = await startTcpServer(() => {})
    const controller = new AbortController()
    try {
      const pending = probe(
        tcpMonitor({ port: mute.port, data: 'x' }, { maxResponseTime: 0 }),
        probeContext(runDir, controller.signal),
      )
      setTimeout(() => controller.abort(new Error('job timeout')), 50)
      const outcome = await pending
      expect(outcome.error?.code).toBe('TIMEOUT')
      expect(outcome.error?.message).toContain('the job was stopped')
    } finally {
      await mute.close()
    }
  })

  it('connects over IPv6 and through a name lookup', async () => {
    const v6 = await startTcpServer((socket) => socket.end(), '::1')
    try {
      const outcome = await probe(tcpMonitor({ hostname: '::1', port: v6.port, ipFamily: 'IPv6' }), ctx())
      expect(outcome.details).toMatchObject({ remoteAddress: '::1', ipFamily: 'IPv6' })
    } finally {
      await v6.close()
    }
    const named = createTcpProbe({ lookup: loopbackLookup(dnsServer.port) })
    const outcome = await named(tcpMonitor({ hostname: 'example.test', port: echo.port }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.timings?.dns).toBeGreaterThan(0)
    const missing = await named(tcpMonitor({ hostname: 'nope.example.test', port: echo.port }), ctx())
    expect(missing.error?.code).toBe('DNS_NXDOMAIN')
  })

  it('names the bad field of an invalid request', async () => {
    const outcome = await probe(tcpMonitor({ port: 70_000 }), ctx())
    expect(outcome.error).toEqual({
      code: 'INVALID_REQUEST',
      message: "request.port '70000' is not allowed (an integer from 1 to 65535)",
    })
  })
})
