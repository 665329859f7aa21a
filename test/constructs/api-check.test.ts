import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiCheck, type ApiCheckProps, AssertionBuilder } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

let dir: string
let checkFile: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-api-'))
  checkFile = join(dir, 'api.check.ts')
  writeFileSync(join(dir, 'sign.ts'), "request.headers['x-signature'] = 'abc'\n")
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const base: ApiCheckProps = {
  name: 'Orders',
  request: { url: 'http://127.0.0.1:3000/orders', method: 'GET' },
}
const api = (props: Record<string, unknown>) => new ApiCheck('orders', { ...base, ...props } as ApiCheckProps)
const withRequest = (request: Record<string, unknown>) => api({ request: { ...base.request, ...request } })
const problems = (check: ApiCheck) => problemsOf(check, { checkFile })

describe('ApiCheck', () => {
  it('defaults: 10000 / 20000 ms, body NONE, redirects followed, newest runtime', () => {
    const check = api({})
    expect(problems(check)).toEqual([])
    expect(check.toDefinition(contextOf({ checkFile }))).toMatchObject({
      type: 'API',
      request: {
        url: 'http://127.0.0.1:3000/orders',
        method: 'GET',
        headers: [],
        queryParameters: [],
        body: '',
        bodyType: 'NONE',
        followRedirects: true,
        skipSSL: false,
        ipFamily: 'IPv4',
        assertions: [],
      },
      degradedResponseTime: 10_000,
      maxResponseTime: 20_000,
      shouldFail: false,
      runtimeId: '2026.04',
      frequencySeconds: 600,
    })
  })

  it('keeps every request option, scripts resolved to absolute paths', () => {
    const check = api({
      request: {
        url: '{{BASE_URL}}/orders',
        method: 'POST',
        headers: [{ key: 'content-type', value: 'application/json' }],
        queryParameters: [{ key: 'page', value: '1' }],
        body: '{"item":1}',
        bodyType: 'JSON',
        basicAuth: { username: 'u', password: 'p' },
        assertions: [AssertionBuilder.jsonBody('$.id').notEmpty()],
      },
      shouldFail: true,
      setupScript: { entrypoint: './sign.ts' },
      tearDownScript: { content: 'response.body = response.body.trim()' },
      runtimeId: '2025.04',
    })
    expect(problems(check)).toEqual([])
    expect(check.toDefinition(contextOf({ checkFile }))).toMatchObject({
      request: { method: 'POST', bodyType: 'JSON', basicAuth: { username: 'u', password: 'p' } },
      shouldFail: true,
      setupScript: { entrypoint: join(dir, 'sign.ts') },
      tearDownScript: { content: 'response.body = response.body.trim()' },
      runtimeId: '2025.04',
    })
  })

  it('accepts every method and body type, refuses others', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
      expect(problems(withRequest({ method }))).toEqual([])
    }
    for (const bodyType of ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE']) {
      expect(problems(withRequest({ bodyType }))).toEqual([])
    }
    expect(problems(withRequest({ method: 'FETCH', bodyType: 'XML' }))).toEqual([
      'request.method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, got "FETCH"',
      'request.bodyType: must be one of JSON, FORM, RAW, GRAPHQL, NONE, got "XML"',
    ])
    expect(problems(withRequest({ method: undefined }))).toEqual([
      'request.method: is required; one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
    ])
  })

  it('caps both response times at 30000 ms and keeps degraded at or below max', () => {
    expect(problems(api({ degradedResponseTime: 30_000, maxResponseTime: 30_000 }))).toEqual([])
    expect(problems(api({ maxResponseTime: 30_001 }))).toEqual([
      'maxResponseTime: must be an integer from 0 to 30000 ms, got 30001',
    ])
    expect(problems(api({ degradedResponseTime: 25_000 }))).toEqual([
      'degradedResponseTime: must not exceed maxResponseTime (20000 ms), got 25000 ms',
    ])
  })

  it('needs exactly one of entrypoint and content in each script', () => {
    expect(
      problems(api({ setupScript: { entrypoint: './sign.ts', content: 'x' }, tearDownScript: {} })),
    ).toEqual([
      'setupScript: has both entrypoint and content; give exactly one',
      'tearDownScript: has neither entrypoint nor content; give exactly one (entrypoint: a .ts, .js or .mjs file)',
    ])
    expect(problems(api({ setupScript: { entrypoint: './missing.ts' } }))).toEqual([
      `setupScript.entrypoint: "./missing.ts" does not exist (looked for ${join(dir, 'missing.ts')})`,
    ])
  })

  it('checks URLs with placeholders for length and scheme only, others fully', () => {
    expect(problems(withRequest({ url: '{{BASE}}/x' }))).toEqual([])
    expect(problems(withRequest({ url: 'ftp://{{HOST}}/x' }))).toEqual([
      'request.url: must start with http://, https:// or a {{VARIABLE}}, got "ftp://{{HOST}}/x"',
    ])
    expect(problems(withRequest({ url: `http://h/${'a'.repeat(2048)}` }))).toEqual([
      'request.url: must be at most 2048 characters, got 2057',
    ])
  })

  it('refuses bad basic auth without showing the password, and sub-minute frequencies', () => {
    const found = problems(withRequest({ basicAuth: { username: '', password: 12345678 } }))
    expect(found).toEqual([
      'request.basicAuth.username: must not be empty',
      'request.basicAuth.password: must be a string',
    ])
    expect(found.join()).not.toContain('12345678')
    expect(problems(api({ frequency: 'EVERY_10S' }))).toEqual([
      'frequency: EVERY_10S is not allowed for API checks; use EVERY_1M..EVERY_24H',
    ])
  })
})
