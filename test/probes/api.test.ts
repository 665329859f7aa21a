import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AssertionBuilder } from '../../src/constructs/api-assertion.ts'
import type { Assertion } from '../../src/model/checks.ts'
import type { ProbeOutcome } from '../../src/model/probe.ts'
import { API_LIMITS } from '../../src/probes/api.ts'
import { apiCheck, apiProbe, DOCUMENT, type Echo, startApiServer, tempRunDir } from './api-fixtures.ts'
import { probeContext, type TestServer } from './url-fixtures.ts'

let server: TestServer
let run: ReturnType<typeof tempRunDir>
beforeAll(async () => {
  server = await startApiServer()
  run = tempRunDir('probe')
})
afterAll(async () => {
  await server.close()
  run.remove()
})

const ctx = () => probeContext(run.dir)
const echoOf = (outcome: ProbeOutcome): Echo => {
  const response = outcome.details?.response as { body: string }
  return JSON.parse(response.body) as Echo
}
const a = (
  source: string,
  property: string,
  comparison: string,
  target: string,
  regex?: string,
): Assertion => ({
  source,
  property,
  comparison,
  target,
  ...(regex ? { regex } : {}),
})

describe('API probe: methods and bodies', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)('sends %s', async (method) => {
    const outcome = await apiProbe()(apiCheck({ url: `${server.origin}/echo`, method }), ctx())
    expect(outcome.status).toBe('passed')
    expect(echoOf(outcome).method).toBe(method)
    expect(outcome.details).toMatchObject({ method, statusCode: 200 })
    expect(Object.keys(outcome.timings ?? {})).toEqual(['dns', 'connect', 'tls', 'firstByte', 'download'])
  })

  it('sends HEAD and reads no body', async () => {
    const before = server.requests.length
    const outcome = await apiProbe()(
      apiCheck({
        url: `${server.origin}/echo`,
        method: 'HEAD',
        assertions: [AssertionBuilder.textBody().isEmpty()],
      }),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
    expect(server.requests.slice(before).map((r) => r.method)).toEqual(['HEAD'])
  })

  it('JSON: the body as written with content-type application/json', async () => {
    const body = '{"item":1,"qty":2}'
    const outcome = await apiProbe()(
      apiCheck({ url: `${server.origin}/echo`, method: 'POST', body, bodyType: 'JSON' }),
      ctx(),
    )
    const echo = echoOf(outcome)
    expect(echo.body).toBe(body)
    expect(echo.headers['content-type']).toBe('application/json')
    expect(echo.headers['content-length']).toBe(String(body.length))
  })

  it('FORM: urlencoded content type', async () => {
    const outcome = await apiProbe()(
      apiCheck({ url: `${server.origin}/echo`, method: 'POST', body: 'a=1&b=two+words', bodyType: 'FORM' }),
      ctx(),
    )
    const echo = echoOf(outcome)
    expect(echo.body).toBe('a=1&b=two+words')
    expect(echo.headers['content-type']).toBe('application/x-www-form-urlencoded')
  })

  it('RAW: the body with no content type added; an explicit header wins for every type', async () => {
    const raw = echoOf(
      await apiProbe()(
        apiCheck({ url: `${server.origin}/echo`, method: 'PUT', body: '<x/>', bodyType: 'RAW' }),
        ctx(),
      ),
    )
    expect(raw.body).toBe('<x/>')
    expect(raw.headers['content-type']).toBeUndefined()
    const explicit = echoOf(
      await apiProbe()(
        apiCheck({
          url: `${server.origin}/echo`,
          method: 'POST',
          body: '{}',
          bodyType: 'JSON',
          headers: [{ key: 'Content-Type', value: 'application/vnd.api+json' }],
        }),
        ctx(),
      ),
    )
    expect(explicit.headers['content-type']).toBe('application/vnd.api+json')
  })

  it('GRAPHQL: query text wrapped as {query}; a {query, variables} object sent as written', async () => {
    const query = '{ widget(id: 7) { name } }'
    const plain = echoOf(
      await apiProbe()(
        apiCheck({ url: `${server.origin}/echo`, method: 'POST', body: query, bodyType: 'GRAPHQL' }),
        ctx(),
      ),
    )
    expect(JSON.parse(plain.body)).toEqual({ query })
    expect(plain.headers['content-type']).toBe('application/json')
    const full = JSON.stringify({
      query: 'query W($id: Int) { widget(id: $id) { name } }',
      variables: { id: 7 },
    })
    const withVariables = echoOf(
      await apiProbe()(
        apiCheck({ url: `${server.origin}/echo`, method: 'POST', body: full, bodyType: 'GRAPHQL' }),
        ctx(),
      ),
    )
    expect(withVariables.body).toBe(full)
  })

  it('NONE: no body is sent even when one is written', async () => {
    const echo = echoOf(
      await apiProbe()(
        apiCheck({ url: `${server.origin}/echo`, method: 'POST', body: 'ignored', bodyType: 'NONE' }),
        ctx(),
      ),
    )
    expect(echo.body).toBe('')
    expect(echo.headers['content-type']).toBeUndefined()
  })

  it('appends query parameters and sends headers and basic auth', async () => {
    const before = server.requests.length
    const outcome = await apiProbe()(
      apiCheck({
        url: `${server.origin}/echo?fixed=1`,
        queryParameters: [
          { key: 'page', value: '2' },
          { key: 'q', value: 'a b&c' },
        ],
        headers: [{ key: 'X-Trace', value: 't-1' }],
        basicAuth: { username: 'user', password: 'pa:ss' },
      }),
      ctx(),
    )
    const echo = echoOf(outcome)
    expect(echo.url).toBe('/echo?fixed=1&page=2&q=a+b%26c')
    expect(echo.headers['x-trace']).toBe('t-1')
    const basic = `Basic ${Buffer.from('user:pa:ss').toString('base64')}`
    const raw = server.requests[before]?.rawHeaders ?? []
    expect(raw[raw.findIndex((h) => h.toLowerCase() === 'authorization') + 1]).toBe(basic)
    // Runtime 2025.04 and later scrub every Authorization value (the echo shows the marker).
    expect(echo.headers.authorization).toBe('*********')
    expect(JSON.stringify(outcome)).not.toContain(Buffer.from('user:pa:ss').toString('base64'))
  })

  it('on runtime 2023.09 the Authorization value is not a secret', async () => {
    const outcome = await apiProbe()(
      apiCheck(
        { url: `${server.origin}/echo`, basicAuth: { username: 'user', password: 'pa:ss' } },
        { runtimeId: '2023.09' },
      ),
      ctx(),
    )
    expect(echoOf(outcome).headers.authorization).toBe(
      `Basic ${Buffer.from('user:pa:ss').toString('base64')}`,
    )
  })

  it('an invalid URL is INVALID_REQUEST before anything is sent', async () => {
    const outcome = await apiProbe()(apiCheck({ url: 'ftp://127.0.0.1/x' }), ctx())
    expect(outcome.error).toEqual({
      code: 'INVALID_REQUEST',
      message: "request.url 'ftp://127.0.0.1/x' uses ftp: (allowed: http:, https:)",
    })
  })

  it('keeps the response body in the result up to a bound', async () => {
    const big = 'x'.repeat(API_LIMITS.keptBodyChars + 100)
    const outcome = await apiProbe()(
      apiCheck({
        url: `${server.origin}/echo`,
        method: 'POST',
        body: big,
        bodyType: 'RAW',
        assertions: [AssertionBuilder.jsonBody('$.body').equals(big as unknown as number)],
      }),
      ctx(),
    )
    // The assertion saw the whole body; the result shows a bounded part of it.
    expect(outcome.assertions[0]?.passed).toBe(true)
    const response = outcome.details?.response as { body: string; bodyShownChars: number; bodyBytes: number }
    expect(response.body.length).toBe(API_LIMITS.keptBodyChars + 1)
    expect(response.bodyShownChars).toBe(API_LIMITS.keptBodyChars)
    expect(response.bodyBytes).toBeGreaterThan(API_LIMITS.keptBodyChars)
  })
})

describe('API probe: assertions', () => {
  // [assertion, passes]: every source and every comparison, a passing and a failing case each.
  const cases: [Assertion, boolean][] = [
    [a('STATUS_CODE', '', 'EQUALS', '200'), true],
    [a('STATUS_CODE', '', 'EQUALS', '201'), false],
    [a('STATUS_CODE', '', 'NOT_EQUALS', '500'), true],
    [a('STATUS_CODE', '', 'NOT_EQUALS', '200'), false],
    [a('STATUS_CODE', '', 'LESS_THAN', '300'), true],
    [a('STATUS_CODE', '', 'LESS_THAN', '200'), false],
    [a('STATUS_CODE', '', 'GREATER_THAN', '199'), true],
    [a('STATUS_CODE', '', 'GREATER_THAN', '200'), false],
    [a('RESPONSE_TIME', '', 'LESS_THAN', '20000'), true],
    [a('RESPONSE_TIME', '', 'LESS_THAN', '0'), false],
    [a('RESPONSE_TIME', '', 'GREATER_THAN', '-1'), true],
    [a('RESPONSE_TIME', '', 'GREATER_THAN', '1000000'), false],
    [a('JSON_BODY', '$.name', 'EQUALS', 'widget'), true],
    [a('JSON_BODY', '$.name', 'EQUALS', 'gadget'), false],
    [a('JSON_BODY', '$.id', 'NOT_EQUALS', '8'), true],
    [a('JSON_BODY', '$.id', 'NOT_EQUALS', '7'), false],
    [a('JSON_BODY', '$.price', 'LESS_THAN', '10'), true],
    [a('JSON_BODY', '$.price', 'LESS_THAN', '9'), false],
    [a('JSON_BODY', '$.price', 'GREATER_THAN', '9'), true],
    [a('JSON_BODY', '$.price', 'GREATER_THAN', '10'), false],
    [a('JSON_BODY', '$.tags', 'CONTAINS', 'b'), true],
    [a('JSON_BODY', '$.tags', 'CONTAINS', 'z'), false],
    [a('JSON_BODY', '$.tags', 'NOT_CONTAINS', 'z'), true],
    [a('JSON_BODY', '$.tags', 'NOT_CONTAINS', 'a'), false],
    [a('JSON_BODY', '$.empty', 'IS_EMPTY', ''), true],
    [a('JSON_BODY', '$.tags', 'IS_EMPTY', ''), false],
    [a('JSON_BODY', '$.tags', 'NOT_EMPTY', ''), true],
    [a('JSON_BODY', '$.empty', 'NOT_EMPTY', ''), false],
    [a('JSON_BODY', '$.nothing', 'IS_NULL', ''), true],
    [a('JSON_BODY', '$.missing', 'IS_NULL', ''), true],
    [a('JSON_BODY', '$.name', 'IS_NULL', ''), false],
    [a('JSON_BODY', '$.name', 'NOT_NULL', ''), true],
    [a('JSON_BODY', '$.nothing', 'NOT_NULL', ''), false],
    [a('JSON_BODY', '$.owner', 'HAS_KEY', 'name'), true],
    [a('JSON_BODY', '$.owner', 'HAS_KEY', 'age'), false],
    [a('JSON_BODY', '$.owner', 'NOT_HAS_KEY', 'age'), true],
    [a('JSON_BODY', '$.owner', 'NOT_HAS_KEY', 'name'), false],
    [a('JSON_BODY', '$.owner', 'HAS_VALUE', 'ann'), true],
    [a('JSON_BODY', '$.owner', 'HAS_VALUE', 'bob'), false],
    [a('JSON_BODY', '$.tags', 'NOT_HAS_VALUE', 'z'), true],
    [a('JSON_BODY', '$.tags', 'NOT_HAS_VALUE', 'a'), false],
    // JSONPath through the library: array length, filters, wildcards.
    [a('JSON_BODY', '$.items.length', 'EQUALS', '2'), true],
    [a('JSON_BODY', '$.items[?(@.id > 1)].id', 'EQUALS', '2'), true],
    [a('JSON_BODY', '$.items[*].id', 'HAS_VALUE', '3'), false],
    [a('HEADERS', 'x-request-id', 'EQUALS', 'abc-123'), true],
    [a('HEADERS', 'X-Request-Id', 'EQUALS', 'other'), false],
    [a('HEADERS', 'X-Request-Id', 'EQUALS', '123', 'abc-(\\d+)'), true],
    [a('HEADERS', 'x-request-id', 'EQUALS', '124', 'abc-(\\d+)'), false],
    [a('HEADERS', '', 'HAS_KEY', 'Content-Type'), true],
    [a('HEADERS', '', 'HAS_KEY', 'x-missing'), false],
    [a('TEXT_BODY', '', 'CONTAINS', '"name":"widget"'), true],
    [a('TEXT_BODY', '', 'CONTAINS', 'gadget'), false],
    [a('TEXT_BODY', '', 'NOT_CONTAINS', 'gadget'), true],
    [a('TEXT_BODY', '', 'NOT_CONTAINS', 'widget'), false],
    [a('TEXT_BODY', '"name":"(\\w+)"', 'EQUALS', 'widget'), true],
  ]

  it('evaluates each assertion and reports source, property, comparison, target, actual, passed', async () => {
    const outcome = await apiProbe()(
      apiCheck({ url: `${server.origin}/doc`, assertions: cases.map(([x]) => x) }),
      ctx(),
    )
    expect(outcome.assertions.map((r) => r.passed)).toEqual(cases.map(([, passes]) => passes))
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('ASSERTION_FAILED')
    expect(outcome.error?.message).toMatch(/^STATUS_CODE EQUALS "201" failed: actual 200 \(and \d+ more\)$/)
    expect(outcome.assertions[12]).toEqual({
      source: 'JSON_BODY',
      property: '$.name',
      comparison: 'EQUALS',
      target: 'widget',
      actual: 'widget',
      passed: true,
    })
    expect(outcome.assertions.find((r) => r.target === '124')).toMatchObject({ actual: '123', passed: false })
    expect(
      outcome.assertions.find((r) => r.property === '$.tags' && r.comparison === 'CONTAINS')?.actual,
    ).toBe(JSON.stringify(DOCUMENT.tags))
  })

  it('passes when every assertion passes, from the construct builders', async () => {
    const outcome = await apiProbe()(
      apiCheck({
        url: `${server.origin}/doc`,
        assertions: [
          AssertionBuilder.statusCode().equals(200),
          AssertionBuilder.jsonBody('$.owner.name').equals('ann' as unknown as number),
          AssertionBuilder.headers('content-type').contains('json'),
          AssertionBuilder.textBody().notEmpty(),
          AssertionBuilder.responseTime().lessThan(20_000),
        ],
      }),
      ctx(),
    )
    expect(outcome.error).toBeUndefined()
    expect(outcome.status).toBe('passed')
    expect(outcome.assertions.every((r) => r.passed)).toBe(true)
  })

  it('a JSON_BODY assertion on a body that is not JSON fails and says why', async () => {
    const outcome = await apiProbe()(
      apiCheck({ url: `${server.origin}/text`, assertions: [a('JSON_BODY', '$.x', 'IS_NULL', '')] }),
      ctx(),
    )
    expect(outcome.assertions[0]?.passed).toBe(false)
    expect(outcome.error?.message).toMatch(/^response body is not JSON: /)
  })

  it('goes degraded over degradedResponseTime', async () => {
    const outcome = await apiProbe()(
      apiCheck({ url: `${server.origin}/doc` }, { degradedResponseTime: 0.001, maxResponseTime: 20_000 }),
      ctx(),
    )
    expect(outcome.status).toBe('degraded')
  })
})

describe('API probe: shouldFail', () => {
  it('without it, an error status fails the run even with no assertions', async () => {
    const outcome = await apiProbe()(apiCheck({ url: `${server.origin}/status/404` }), ctx())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('HTTP_ERROR_STATUS')
    expect(outcome.error?.message).toContain('response status 404')
  })

  it('with it, an error status passes', async () => {
    const outcome = await apiProbe()(
      apiCheck({ url: `${server.origin}/status/500` }, { shouldFail: true }),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
    expect(outcome.details?.shouldFail).toBe(true)
  })

  it('with it, an assertion on the error status decides, and a failed assertion still fails', async () => {
    const pass = await apiProbe()(
      apiCheck(
        { url: `${server.origin}/status/404`, assertions: [AssertionBuilder.statusCode().equals(404)] },
        { shouldFail: true },
      ),
      ctx(),
    )
    expect(pass.status).toBe('passed')
    const fail = await apiProbe()(
      apiCheck(
        { url: `${server.origin}/status/404`, assertions: [AssertionBuilder.statusCode().equals(410)] },
        { shouldFail: true },
      ),
      ctx(),
    )
    expect(fail.status).toBe('failed')
    expect(fail.error?.code).toBe('ASSERTION_FAILED')
  })

  it('with it, a successful response still passes', async () => {
    const outcome = await apiProbe()(apiCheck({ url: `${server.origin}/doc` }, { shouldFail: true }), ctx())
    expect(outcome.status).toBe('passed')
  })
})

describe('API probe: variables', () => {
  it('fills {{NAME}} in URL, headers, query parameters and body from the check variables', async () => {
    const outcome = await apiProbe()(
      apiCheck(
        {
          url: '{{BASE_URL}}/echo',
          method: 'POST',
          headers: [{ key: 'x-tenant', value: '{{ TENANT }}' }],
          queryParameters: [{ key: '{{PARAM}}', value: '{{TENANT}}' }],
          body: '{"tenant":"{{TENANT}}"}',
          bodyType: 'JSON',
        },
        {
          environmentVariables: [
            { key: 'BASE_URL', value: server.origin },
            { key: 'TENANT', value: 'acme' },
            { key: 'PARAM', value: 'who' },
          ],
        },
      ),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
    const echo = echoOf(outcome)
    expect(echo.url).toBe('/echo?who=acme')
    expect(echo.headers['x-tenant']).toBe('acme')
    expect(echo.body).toBe('{"tenant":"acme"}')
  })

  it('an unknown name fails before anything is sent, naming every variable and where it is', async () => {
    const before = server.requests.length
    const outcome = await apiProbe()(
      apiCheck({
        url: `${server.origin}/echo`,
        headers: [{ key: 'authorization', value: 'Bearer {{TOKEN}}' }],
        body: '{{PAYLOAD}}',
      }),
      ctx(),
    )
    expect(server.requests.length).toBe(before)
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('UNKNOWN_VARIABLE')
    expect(outcome.error?.message).toBe(
      'unknown variables {{TOKEN}} in request.headers[0].value, {{PAYLOAD}} in request.body: define them in ' +
        "the check's environmentVariables, as SERVICE_SECRET_* in the agent's environment, or in a setup script " +
        '(process.env.NAME = ...); nothing was sent',
    )
    expect(outcome.details?.unknownVariables).toEqual([
      { name: 'TOKEN', where: 'request.headers[0].value' },
      { name: 'PAYLOAD', where: 'request.body' },
    ])
  })

  it("sends the agent's SERVICE_SECRET_* and secret check variables, and scrubs them from the result", async () => {
    const agentSecret = 'agent-secret-value-123'
    const checkSecret = 'check-secret-value-456'
    const outcome = await apiProbe({
      env: { PATH: process.env.PATH, SERVICE_SECRET_TOKEN: agentSecret, API_KEY: 'agent-api-key-0001' },
    })(
      apiCheck(
        {
          url: `${server.origin}/echo`,
          method: 'POST',
          headers: [{ key: 'x-token', value: '{{SERVICE_SECRET_TOKEN}}' }],
          queryParameters: [{ key: 'sig', value: '{{SIGNING}}' }],
          body: 'password={{SIGNING}}',
          bodyType: 'FORM',
          assertions: [
            AssertionBuilder.jsonBody('$.headers.x-token').equals(agentSecret as unknown as number),
          ],
        },
        { environmentVariables: [{ key: 'SIGNING', value: checkSecret, secret: true }] },
      ),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
    // The server got the real values (the assertion compared them), the result never shows them.
    const text = JSON.stringify(outcome)
    expect(text).not.toContain(agentSecret)
    expect(text).not.toContain(checkSecret)
    expect(text).toContain('*********')
    expect(outcome.assertions[0]).toMatchObject({ passed: true, actual: '*********', target: '*********' })
  })

  it('does not fill {{API_KEY}} or other agent variables', async () => {
    const outcome = await apiProbe({ env: { PATH: process.env.PATH, API_KEY: 'agent-api-key-0001' } })(
      apiCheck({ url: `${server.origin}/echo`, headers: [{ key: 'x', value: '{{API_KEY}}' }] }),
      ctx(),
    )
    expect(outcome.error?.code).toBe('UNKNOWN_VARIABLE')
  })
})
