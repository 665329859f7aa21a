// An API check definition builder, a probe context and a loopback server that answers like a small
// JSON API (echo, fixed document, chosen status, HMAC verification) for the API probe tests.

import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import type http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { ApiCheck, ApiRequest } from '../../src/model/checks.ts'
import { type ApiProbeDependencies, createApiProbe } from '../../src/probes/api.ts'
import { urlCheck } from '../helpers/definitions.ts'
import { startHttpServer, type TestServer } from './url-fixtures.ts'

export const RUNTIMES_DIR = path.resolve(import.meta.dirname, '../../runtimes')

export function apiCheck(
  request: Partial<ApiRequest> & { url: string },
  overrides: Partial<Omit<ApiCheck, 'request' | 'type'>> = {},
): ApiCheck {
  const { request: _urlRequest, type: _type, ...common } = urlCheck('api-test')
  return {
    ...common,
    type: 'API',
    name: 'API test',
    request: {
      method: 'GET',
      headers: [],
      queryParameters: [],
      body: '',
      bodyType: 'NONE',
      followRedirects: true,
      skipSSL: false,
      ipFamily: 'IPv4',
      assertions: [],
      ...request,
    },
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
    shouldFail: false,
    runtimeId: '2026.04',
    ...overrides,
  }
}

export function apiProbe(deps: Partial<ApiProbeDependencies> = {}) {
  return createApiProbe({ runtimesDir: RUNTIMES_DIR, env: { PATH: process.env.PATH }, ...deps })
}

export interface Echo {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  body: string
}

export const DOCUMENT = {
  id: 7,
  name: 'widget',
  price: 9.5,
  tags: ['a', 'b'],
  owner: { name: 'ann' },
  empty: [],
  nothing: null,
  items: [{ id: 1 }, { id: 2 }],
}

export const HMAC_KEY = 'hmac-key-for-tests'

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function sendJson(
  res: http.ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(value))
}

/**
 * /echo: the request as JSON; /doc: DOCUMENT with an x-request-id header; /status/<n>: that status;
 * /signed: 200 when x-signature is the HMAC-SHA256 (HMAC_KEY) of method, path and body, else 401;
 * /wrapped: 503 with {"envelope":{"data":{"value":5}}} for a teardown to unwrap; /text: plain text.
 */
export async function startApiServer(): Promise<TestServer> {
  return startHttpServer((req, res) => {
    void (async () => {
      const body = await readBody(req)
      const url = new URL(req.url ?? '/', 'http://x')
      if (url.pathname === '/echo') {
        const echo: Echo = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body }
        return sendJson(res, 200, echo)
      }
      if (url.pathname === '/doc') return sendJson(res, 200, DOCUMENT, { 'x-request-id': 'abc-123' })
      if (url.pathname.startsWith('/status/')) {
        return sendJson(res, Number(url.pathname.slice(8)), { status: Number(url.pathname.slice(8)) })
      }
      if (url.pathname === '/signed') {
        const expected = createHmac('sha256', HMAC_KEY)
          .update(`${req.method}\n${url.pathname}\n${body}`)
          .digest()
        const given = Buffer.from(String(req.headers['x-signature'] ?? ''), 'hex')
        const ok = given.length === expected.length && timingSafeEqual(given, expected)
        return sendJson(res, ok ? 200 : 401, { verified: ok })
      }
      if (url.pathname === '/wrapped') return sendJson(res, 503, { envelope: { data: { value: 5 } } })
      if (url.pathname === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' })
        return res.end('hello plain world')
      }
      res.writeHead(404)
      res.end()
    })()
  })
}

export function tempRunDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), `outpost-api-${prefix}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
