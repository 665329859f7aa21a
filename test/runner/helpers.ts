// Shared pieces of the runner tests: a real HTTP server on loopback, check objects, a logger that
// keeps its lines for assertions.

import { mkdtempSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Writable } from 'node:stream'
import type { BrowserCheck, MultiStepCheck, RuntimeId } from '../../src/model/checks.ts'
import type { ProbeContext } from '../../src/model/probe.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { createLogger, type Logger } from '../../src/telemetry/logger.ts'

export const RUNTIMES_DIR = resolve(import.meta.dirname, '../../runtimes')

export interface TestServer {
  url: string
  requests: { method: string; url: string; headers: IncomingMessage['headers'] }[]
  close(): Promise<void>
}

/** Routes: /ok -> 200 'ok', /json -> 200 {"n":1}, /fail -> 500, /page -> small HTML page. */
export async function startServer(): Promise<TestServer> {
  const requests: TestServer['requests'] = []
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers })
    if (req.url?.startsWith('/fail')) {
      res.writeHead(500).end('broken')
    } else if (req.url?.startsWith('/json')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"n":1}')
    } else if (req.url?.startsWith('/page')) {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body><h1>Outpost test page</h1></body></html>')
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  }
}

export function memoryLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk))
      cb()
    },
  })
  return {
    log: createLogger({ level: 'debug', scrubber: createScrubber([]), destination, pretty: false }),
    lines,
  }
}

const base = {
  activated: true,
  muted: false,
  tags: [],
  frequencySeconds: 600,
  locations: [],
  privateLocations: [],
  retryStrategy: {
    type: 'NONE' as const,
    baseBackoffSeconds: 0,
    maxRetries: 0,
    maxDurationSeconds: 0,
    sameRegion: false,
  },
}

export function multistep(
  content: string,
  opts: { runtimeId?: RuntimeId; env?: Record<string, string>; timeoutSeconds?: number } = {},
): MultiStepCheck {
  return {
    ...base,
    logicalId: 'ms',
    name: 'multistep',
    type: 'MULTI_STEP',
    code: { content },
    runtimeId: opts.runtimeId ?? '2026.04',
    environmentVariables: Object.entries(opts.env ?? {}).map(([key, value]) => ({ key, value })),
    timeoutSeconds: opts.timeoutSeconds ?? 60,
  }
}

export function browserCheck(content: string, env: Record<string, string> = {}): BrowserCheck {
  return { ...multistep(content, { env }), type: 'BROWSER', logicalId: 'br', name: 'browser' }
}

export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

export function context(
  log: Logger,
  runDir: string,
  opts: { signal?: AbortSignal; testSession?: boolean } = {},
): ProbeContext {
  return {
    signal: opts.signal ?? new AbortController().signal,
    log,
    runDir,
    testSession: opts.testSession ?? false,
  }
}

/** A data directory for a runner under test (warm runners keep their scratch files there). */
export function testDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'runner-data-'))
}
