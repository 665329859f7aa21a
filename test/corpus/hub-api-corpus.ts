// Bad input to the hub (a real hub on loopback): API requests with wrong types, unknown fields, huge
// limits and injection strings, and broken result payloads on the agent API. Each gets 400 (or 413)
// with the field named; nothing is stored half-way; text is stored verbatim, never interpreted. The
// same cases run on SQLite (hub-api.test.ts) and PostgreSQL (hub-api-postgres.test.ts): both
// backends give the same answer, NUL (U+0000) included.

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHub, type TestHub } from '../hub/helpers/test-hub.ts'

export interface Backend {
  /** undefined: SQLite in the hub's data dir. */
  databaseUrl(): Promise<string | undefined>
}

const NUL = 'nul\u0000byte'
// As regex text: the message every NUL refusal carries after the field's name.
const NUL_RULE = 'must not contain the NUL character U\\+0000'

const INJECTIONS = [
  "'; DROP TABLE incidents; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the injection is this literal text.
  '${process.exit(1)}',
  '🔥💥 emoji',
] as const

interface ApiCase {
  label: string
  method: string
  path: string
  body?: unknown
  status: number
  /** The message must name the field: matched against `message`. */
  message: RegExp
}

function result(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: randomUUID(),
    checkId: 'corpus-check',
    checkType: 'URL',
    name: 'Corpus',
    status: 'passed',
    startedAt: new Date().toISOString(),
    durationMs: 12,
    location: 'private',
    attempt: 1,
    assertions: [],
    artifacts: [],
    agent: { id: 'agent-1', version: '0.0.0', flavor: 'full' },
    ...overrides,
  }
}

const cases: ApiCase[] = [
  // Public API: incidents.
  {
    label: 'incident severity not in the list',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 'x', severity: "'; DROP TABLE" },
    status: 400,
    message: /body\/severity .*one of/,
  },
  {
    label: 'incident name given as a number',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 42, severity: 'MAJOR' },
    status: 400,
    message: /body\/name must be string/,
  },
  {
    label: 'incident services given as one string instead of a list',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 'x', severity: 'MAJOR', services: 's1' },
    status: 400,
    message: /body\/services must be array/,
  },
  {
    label: 'incident with an unknown field',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 'x', severity: 'MAJOR', admin: true },
    status: 400,
    message: /body\/admin/,
  },
  {
    label: 'incident name over 255 characters',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 'n'.repeat(256), severity: 'MAJOR' },
    status: 400,
    message: /body\/name .*255/,
  },
  {
    label: 'incident with 101 services',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 'x', severity: 'MAJOR', services: Array.from({ length: 101 }, (_, i) => `s${i}`) },
    status: 400,
    message: /body\/services .*100/,
  },
  {
    label: 'incident body that is not JSON',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: '{"name": ',
    status: 400,
    message: /JSON|body/i,
  },
  // Query limits.
  {
    label: 'limit of 10^12',
    method: 'GET',
    path: '/v1/status-pages/incidents?limit=1000000000000',
    status: 400,
    message: /querystring\/limit/,
  },
  {
    label: 'limit as hex',
    method: 'GET',
    path: '/v1/status-pages/incidents?limit=0x10',
    status: 400,
    message: /querystring\/limit/,
  },
  {
    label: 'negative limit',
    method: 'GET',
    path: '/v1/status-pages/incidents?limit=-1',
    status: 400,
    message: /querystring\/limit/,
  },
  {
    label: 'cursor that is an injection string',
    method: 'GET',
    path: `/v1/status-pages/incidents?nextId=${encodeURIComponent("' OR 1=1 --")}`,
    status: 400,
    message: /nextId/,
  },
  // Agent API: broken job results.
  {
    label: 'result without an id',
    method: 'POST',
    path: '/v1/agent/results',
    body: result({ id: undefined }),
    status: 400,
    message: /body\/id|id/,
  },
  {
    label: 'result with a status not in the list',
    method: 'POST',
    path: '/v1/agent/results',
    body: result({ status: 'exploded' }),
    status: 400,
    message: /body\/status/,
  },
  {
    label: 'result with a string duration',
    method: 'POST',
    path: '/v1/agent/results',
    body: result({ durationMs: 'ten' }),
    status: 400,
    message: /body\/durationMs/,
  },
  {
    label: 'result with a name over 1,024 characters (the agent allows 1,024)',
    method: 'POST',
    path: '/v1/agent/results',
    body: result({ name: 'n'.repeat(1025) }),
    status: 400,
    message: /^body\/name must NOT have more than 1024 characters/,
  },
  {
    label: 'result that is an array',
    method: 'POST',
    path: '/v1/agent/results',
    body: [result()],
    status: 400,
    message: /body/,
  }, // NUL (U+0000): PostgreSQL cannot store it in text; both backends refuse it in every declared field.
  {
    label: 'NUL in an incident name',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: NUL, severity: 'MINOR' },
    status: 400,
    message: new RegExp(`^body/name ${NUL_RULE} \\(got "nul\\\\u0000byte"\\)$`),
  },
  {
    label: 'NUL in the description of a first incident update',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 'fine', severity: 'MINOR', description: NUL },
    status: 400,
    message: new RegExp(`^body/description ${NUL_RULE}`),
  },
  {
    label: 'NUL in a service id of an incident',
    method: 'POST',
    path: '/v1/status-pages/incidents',
    body: { name: 'fine', severity: 'MINOR', services: ['s1', NUL] },
    status: 400,
    message: new RegExp(`^body/services/1 ${NUL_RULE}`),
  },
  {
    label: 'NUL in a cursor',
    method: 'GET',
    path: `/v1/status-pages/incidents?nextId=${encodeURIComponent(NUL)}`,
    status: 400,
    message: new RegExp(`^querystring/nextId ${NUL_RULE}`),
  },
  {
    label: 'NUL in an incident id in the path',
    method: 'GET',
    path: `/v1/status-pages/incidents/${encodeURIComponent(NUL)}`,
    status: 400,
    message: new RegExp(`^params/incidentId ${NUL_RULE}`),
  },
  {
    label: 'NUL in a subscriber URL (beside its own https?:// pattern)',
    method: 'POST',
    path: '/v1/status-pages/subscribers',
    body: { url: `https://example.test/${NUL}` },
    status: 400,
    message: new RegExp(`^body/url ${NUL_RULE}`),
  },
  {
    label: 'NUL in the logicalId of a triggered check',
    method: 'POST',
    path: '/v2/check-sessions/trigger',
    body: { checks: [{ type: 'URL', logicalId: NUL, name: 'x', request: { url: 'http://127.0.0.1:1/' } }] },
    status: 400,
    message: new RegExp(`^body/checks/0/logicalId ${NUL_RULE}`),
  },
  {
    label: 'NUL in the location an agent registers at',
    method: 'POST',
    path: '/v1/agent/register',
    body: { agentId: 'a1', flavor: 'uptime', version: '1', location: NUL, checkTypes: ['URL'] },
    status: 400,
    message: new RegExp(`^body/location ${NUL_RULE}`),
  },
  {
    label: 'NUL in the checkId of a result',
    method: 'POST',
    path: '/v1/agent/results',
    body: result({ checkId: NUL }),
    status: 400,
    message: new RegExp(`^body/checkId ${NUL_RULE}`),
  },
  {
    label: 'NUL in the name of a result',
    method: 'POST',
    path: '/v1/agent/results',
    body: result({ name: NUL }),
    status: 400,
    message: new RegExp(`^body/name ${NUL_RULE}`),
  },
  {
    label: 'NUL in the agent id of a result',
    method: 'POST',
    path: '/v1/agent/results',
    body: result({ agent: { id: NUL, version: '0.0.0', flavor: 'full' } }),
    status: 400,
    message: new RegExp(`^body/agent/id ${NUL_RULE}`),
  },
]

/** The whole corpus against a hub on `backend`; `label` names the backend in the test names. */
export function hubApiCorpus(label: string, backend: Backend): void {
  describe(`corpus: bad input to the hub (${label})`, () => {
    let hub: TestHub
    beforeAll(async () => {
      hub = await startTestHub({ databaseUrl: await backend.databaseUrl() })
    })
    afterAll(() => hub?.close())

    const send = async (c: Pick<ApiCase, 'method' | 'path' | 'body'>) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${hub.key}`,
        'x-service-account': hub.accountId,
      }
      if (c.body !== undefined) headers['content-type'] = 'application/json'
      const response = await fetch(`${hub.url}${c.path}`, {
        method: c.method,
        headers,
        body: c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body),
      })
      const text = await response.text()
      return { status: response.status, text, body: JSON.parse(text) as { message?: string } }
    }

    // What a refused request must leave as it was: incidents (with their updates) and results.
    const stored = async () =>
      [
        (await send({ method: 'GET', path: '/v1/status-pages/incidents?limit=100' })).text,
        (await send({ method: 'GET', path: '/v1/check-results/corpus-check?limit=100' })).text,
      ].join('\n')

    it.each(cases.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
      const before = await stored()
      const answer = await send(c)
      expect(answer.status, answer.text).toBe(c.status)
      expect(answer.body.message).toMatch(c.message)
      // Nothing stored half-way.
      expect(await stored()).toBe(before)
    })

    it('a result named with the 1,024 characters the agent allows is taken', async () => {
      const answer = await send({
        method: 'POST',
        path: '/v1/agent/results',
        body: result({ checkId: 'long-name', name: 'n'.repeat(1024) }),
      })
      expect(answer.status, answer.text).toBe(201)
    })

    it('NUL in the free-form content of a result is kept: stored as JSON, returned verbatim', async () => {
      const id = randomUUID()
      const posted = await send({
        method: 'POST',
        path: '/v1/agent/results',
        body: result({
          id,
          checkId: 'nul-content',
          assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'x', actual: NUL }],
          error: { message: NUL },
        }),
      })
      expect(posted.status, posted.text).toBe(201)
      const read = await send({ method: 'GET', path: '/v1/check-results/nul-content' })
      expect(read.status, read.text).toBe(200)
      const [entry] = (read.body as unknown as { entries: Array<Record<string, unknown>> }).entries
      expect(entry?.id).toBe(id)
      expect(entry?.assertions).toEqual([
        { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'x', actual: NUL },
      ])
      expect(entry?.error).toEqual({ message: NUL })
    })

    it('a body over the limit is refused with 413', async () => {
      const answer = await send({
        method: 'POST',
        path: '/v1/status-pages/incidents',
        body: { name: 'x', severity: 'MAJOR', description: 'd'.repeat(20 * 1024 * 1024) },
      })
      expect(answer.status).toBe(413)
    })

    it.each(INJECTIONS.map((s) => [JSON.stringify(s), s] as const))(
      'injection string %s in every text field is stored and returned verbatim',
      async (_label, text) => {
        const created = await send({
          method: 'POST',
          path: '/v1/status-pages/incidents',
          body: { name: text, severity: 'MINOR', description: text },
        })
        expect(created.status, created.text).toBe(201)
        const id = (created.body as { id: string }).id
        const read = await send({
          method: 'GET',
          path: `/v1/status-pages/incidents/${encodeURIComponent(id)}`,
        })
        expect(read.status).toBe(200)
        expect((read.body as { name: string }).name).toBe(text)
        expect(read.text).toContain(JSON.stringify(text).slice(1, -1))
        // The result API takes it as data too.
        const r = await send({
          method: 'POST',
          path: '/v1/agent/results',
          body: result({ name: text, checkId: 'inj' }),
        })
        expect(r.status, r.text).toBe(201)
      },
    )
  })
}
