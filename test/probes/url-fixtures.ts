// Real HTTP and HTTPS servers on loopback for the URL probe tests, and a self-signed certificate
// made by the openssl CLI at test time.

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { UrlCheck } from '../../src/model/checks.ts'
import type { ProbeContext } from '../../src/model/probe.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { createLogger } from '../../src/telemetry/logger.ts'
import { urlCheck } from '../helpers/definitions.ts'

export interface RecordedRequest {
  method: string
  url: string
  /** Raw header names and values in the order received. */
  rawHeaders: string[]
}

export interface TestServer {
  origin: string
  port: number
  requests: RecordedRequest[]
  /** Connections the server holds open right now. */
  openConnections(): number
  close(): Promise<void>
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

export async function startHttpServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  return listen(http.createServer(), handler, host, 'http')
}

export async function startHttpsServer(
  handler: Handler,
  cert: SelfSignedCert,
  host = '127.0.0.1',
): Promise<TestServer> {
  return listen(https.createServer({ key: cert.key, cert: cert.cert }), handler, host, 'https')
}

async function listen(
  server: http.Server,
  handler: Handler,
  host: string,
  scheme: 'http' | 'https',
): Promise<TestServer> {
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders })
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const { port } = server.address() as AddressInfo
  const hostPart = host.includes(':') ? `[${host}]` : host
  return {
    origin: `${scheme}://${hostPart}:${port}`,
    port,
    requests,
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

export interface SelfSignedCert {
  key: Buffer
  cert: Buffer
  /** openssl's notAfter, parsed. */
  notAfter: Date
}

export function makeSelfSignedCert(days: number): SelfSignedCert {
  const dir = mkdtempSync(path.join(tmpdir(), 'outpost-cert-'))
  try {
    const key = path.join(dir, 'key.pem')
    const cert = path.join(dir, 'cert.pem')
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        String(days),
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    )
    const endDate = execFileSync('openssl', ['x509', '-in', cert, '-noout', '-enddate'], { encoding: 'utf8' })
    return {
      key: readFileSync(key),
      cert: readFileSync(cert),
      notAfter: new Date(endDate.trim().replace(/^notAfter=/, '')),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function probeContext(
  runDir: string,
  signal: AbortSignal = new AbortController().signal,
): ProbeContext {
  const log = createLogger({ level: 'error', scrubber: createScrubber([]), pretty: false })
  return { signal, log, runDir, testSession: true }
}

export function urlMonitor(
  url: string,
  request: Partial<UrlCheck['request']> = {},
  limits: Partial<Pick<UrlCheck, 'degradedResponseTime' | 'maxResponseTime'>> = {},
): UrlCheck {
  const base = urlCheck('url-test')
  return { ...base, ...limits, request: { ...base.request, url, ...request } }
}
