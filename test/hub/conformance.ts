// The hub's conformance suite: every seed route with good and bad input, auth and account scoping,
// pagination under concurrent inserts, sessions, the agent exchange. It runs unchanged against
// SQLite (conformance-sqlite.test.ts) and PostgreSQL (conformance-postgres.test.ts).

import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHub, type TestHub } from './helpers/test-hub.ts'

export interface Backend {
  /** undefined: SQLite in the hub's data dir. */
  databaseUrl(): Promise<string | undefined>
}

type Json = Record<string, unknown>

const SEED_ROUTES = [
  ['GET', '/v1/status-pages/incidents'],
  ['GET', '/v1/status-pages/incidents/some-id'],
  ['POST', '/v1/status-pages/incidents/some-id/incident-updates'],
  ['GET', '/v1/checks/heartbeats/some-check/availability'],
  ['GET', '/v2/check-sessions/some-session/completion'],
] as const

function urlCheck(logicalId: string): Json {
  return {
    type: 'URL',
    logicalId,
    name: `check ${logicalId}`,
    request: { url: 'http://127.0.0.1:1/', method: 'GET' },
  }
}

function result(id: string, overrides: Json = {}): Json {
  return {
    id,
    checkId: 'check-a',
    checkType: 'URL',
    name: 'check a',
    status: 'passed',
    startedAt: new Date().toISOString(),
    durationMs: 12,
    location: 'private',
    attempt: 1,
    assertions: [],
    artifacts: [],
    agent: { id: 'agent-1', version: '7.0.1', flavor: 'full' },
    ...overrides,
  }
}

export function hubConformance(name: string, backend: Backend): void {
  describe(`hub conformance (${name})`, () => {
    let t: TestHub
    let other: { accountId: string; key: string }

    beforeAll(async () => {
      t = await startTestHub({ databaseUrl: await backend.databaseUrl() })
      const account = await t.hub.store.createAccount('other')
      other = { accountId: account.id, key: (await t.hub.store.createApiKey(account.id, 'other')).key }
    })
    afterAll(async () => {
      await t?.close()
    })

    const createIncident = async (body: Json, key?: string): Promise<Json> => {
      const response = await t.api('/v1/status-pages/incidents', { body, key })
      expect(response.status, response.text).toBe(201)
      return response.body as Json
    }

    describe('authentication and accounts', () => {
      it('401 on every seed route without a key, with a malformed header and with an unknown key', async () => {
        for (const [method, path] of SEED_ROUTES) {
          const body = method === 'POST' ? { description: 'x' } : undefined
          const none = await t.api(path, { method, key: null, body })
          expect(none.status, `${method} ${path}`).toBe(401)
          expect(none.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' })
          expect((none.body as Json).message).toMatch(/Authorization: Bearer/)
          const bad = await t.api(path, { method, key: 'op_not-a-key', body })
          expect(bad.status).toBe(401)
          expect((bad.body as Json).message).not.toContain('op_not-a-key')
        }
        const raw = await fetch(`${t.url}/v1/status-pages/incidents`, {
          headers: { authorization: `Basic ${t.key}` },
        })
        expect(raw.status).toBe(401)
      })

      it('403 when x-service-account names an account the key does not belong to', async () => {
        for (const [method, path] of SEED_ROUTES) {
          const response = await t.api(path, {
            method,
            account: other.accountId,
            body: method === 'POST' ? { description: 'x' } : undefined,
          })
          expect(response.status, `${method} ${path}`).toBe(403)
          expect(response.body).toMatchObject({ statusCode: 403, error: 'Forbidden' })
        }
        expect((await t.api('/v1/status-pages/incidents', { account: 'no-such-account' })).status).toBe(403)
      })

      it('the own account may be named explicitly', async () => {
        const response = await t.api('/v1/status-pages/incidents', { account: t.accountId })
        expect(response.status).toBe(200)
      })

      it('one account never sees another account’s incidents (404 by id, absent from the list)', async () => {
        const mine = await createIncident({ name: 'mine', severity: 'MINOR' })
        const theirs = await createIncident({ name: 'theirs', severity: 'MAJOR' }, other.key)
        expect((await t.api(`/v1/status-pages/incidents/${theirs.id}`)).status).toBe(404)
        const update = await t.api(`/v1/status-pages/incidents/${theirs.id}/incident-updates`, {
          body: { description: 'not mine' },
        })
        expect(update.status).toBe(404)
        const list = (await t.api('/v1/status-pages/incidents?limit=100', { key: other.key })).body as Json
        const ids = (list.entries as Json[]).map((e) => e.id)
        expect(ids).toContain(theirs.id)
        expect(ids).not.toContain(mine.id)
      })

      it('a key granted a second account switches with x-service-account; API keys can be created and revoked', async () => {
        const created = await t.api('/v1/accounts', { body: { name: 'second' } })
        expect(created.status).toBe(201)
        const second = (created.body as Json).id as string
        const incident = await t.api('/v1/status-pages/incidents', {
          account: second,
          body: { name: 'in second', severity: 'MEDIUM' },
        })
        expect(incident.status).toBe(201)
        const id = (incident.body as Json).id
        expect((await t.api(`/v1/status-pages/incidents/${id}`, { account: second })).status).toBe(200)
        expect((await t.api(`/v1/status-pages/incidents/${id}`)).status).toBe(404)

        const key = await t.api('/v1/api-keys', { account: second, body: { name: 'ci' } })
        expect(key.status).toBe(201)
        const { key: plaintext, id: keyId } = key.body as { key: string; id: string }
        expect((await t.api(`/v1/status-pages/incidents/${id}`, { key: plaintext })).status).toBe(200)
        // The new key belongs to the second account only.
        expect(
          (await t.api('/v1/status-pages/incidents', { key: plaintext, account: t.accountId })).status,
        ).toBe(403)
        const listed = (await t.api('/v1/api-keys', { account: second })).body as Json[]
        expect(listed.map((k) => k.id)).toContain(keyId)
        expect(JSON.stringify(listed)).not.toContain(plaintext)
        expect((await t.api(`/v1/api-keys/${keyId}`, { method: 'DELETE', account: second })).status).toBe(204)
        expect((await t.api('/v1/status-pages/incidents', { key: plaintext })).status).toBe(401)
      })

      it('serves /openapi.json without a key, listing every seed route with its parameters', async () => {
        const response = await fetch(`${t.url}/openapi.json`)
        expect(response.status).toBe(200)
        const doc = (await response.json()) as {
          openapi: string
          paths: Record<string, Record<string, Json>>
        }
        expect(doc.openapi).toMatch(/^3\./)
        expect(Object.keys(doc.paths)).toEqual(
          expect.arrayContaining([
            '/v1/status-pages/incidents',
            '/v1/status-pages/incidents/{incidentId}',
            '/v1/status-pages/incidents/{incidentId}/incident-updates',
            '/v1/checks/heartbeats/{checkId}/availability',
            '/v2/check-sessions/{checkSessionId}/completion',
          ]),
        )
        const list = doc.paths['/v1/status-pages/incidents']?.get as { parameters: Json[] }
        const limit = list.parameters.find((p) => p.name === 'limit')
        expect(limit).toMatchObject({ in: 'query', schema: { minimum: 1, maximum: 100, default: 20 } })
        const completion = doc.paths['/v2/check-sessions/{checkSessionId}/completion']?.get as {
          parameters: Json[]
        }
        expect(completion.parameters.find((p) => p.name === 'maxWaitSeconds')).toMatchObject({
          schema: { minimum: 1, maximum: 30, default: 30 },
        })
      })
    })

    describe('incidents', () => {
      it('rejects limit 0, 101, abc and 1.5, and a nextId that is not a cursor, naming the field', async () => {
        for (const limit of ['0', '101', 'abc', '1.5', '-1', '', '0x10', '1e1', '%205', '5&limit=6']) {
          const response = await t.api(`/v1/status-pages/incidents?limit=${limit}`)
          expect(response.status, `limit=${limit}`).toBe(400)
          expect(response.body).toMatchObject({ statusCode: 400, error: 'Bad Request' })
          expect((response.body as Json).message).toMatch(/limit/)
        }
        const cursor = await t.api('/v1/status-pages/incidents?nextId=garbage')
        expect(cursor.status).toBe(400)
        expect((cursor.body as Json).message).toMatch(/nextId/)
        const unknown = await t.api('/v1/status-pages/incidents?foo=1')
        expect(unknown.status).toBe(400)
      })

      it('accepts limit 1 and 100 and defaults to 20', async () => {
        for (let i = 0; i < 22; i += 1) await createIncident({ name: `bulk ${i}`, severity: 'MINOR' })
        const one = (await t.api('/v1/status-pages/incidents?limit=1')).body as Json
        expect(one.length).toBe(1)
        expect(typeof one.nextId).toBe('string')
        const fallback = (await t.api('/v1/status-pages/incidents')).body as Json
        expect(fallback.length).toBe(20)
        expect((fallback.entries as Json[]).length).toBe(20)
        const hundred = (await t.api('/v1/status-pages/incidents?limit=100')).body as Json
        expect(hundred.length).toBeGreaterThanOrEqual(22)
      })

      it('creates an incident with services and returns the seed’s Incident shape', async () => {
        const service = await t.api('/v1/services', { body: { name: 'checkout' } })
        expect(service.status).toBe(201)
        const serviceId = (service.body as Json).id
        const incident = await createIncident({
          name: 'Checkout errors',
          severity: 'CRITICAL',
          services: [serviceId],
          description: 'We are looking into it',
        })
        expect(incident).toMatchObject({
          name: 'Checkout errors',
          severity: 'CRITICAL',
          lastUpdateStatus: 'INVESTIGATING',
          duration: null,
          services: [{ id: serviceId, name: 'checkout', accountId: t.accountId }],
          incidentUpdates: [
            { description: 'We are looking into it', status: 'INVESTIGATING', notifySubscribers: false },
          ],
        })
        expect(Date.parse(incident.created_at as string)).not.toBeNaN()
        const read = await t.api(`/v1/status-pages/incidents/${incident.id}`)
        expect(read.status).toBe(200)
        expect(read.body).toEqual(incident)
        const page = await t.api('/v1/status-pages', { body: { name: 'Public', services: [serviceId] } })
        expect(page.status).toBe(201)
        expect((page.body as Json).services).toHaveLength(1)
      })

      it('rejects a name over 255 characters, a bad severity and an unknown service', async () => {
        expect(
          (await t.api('/v1/status-pages/incidents', { body: { name: 'x'.repeat(255), severity: 'MINOR' } }))
            .status,
        ).toBe(201)
        const long = await t.api('/v1/status-pages/incidents', {
          body: { name: 'x'.repeat(256), severity: 'MINOR' },
        })
        expect(long.status).toBe(400)
        expect((long.body as Json).message).toMatch(/name/)
        const severity = await t.api('/v1/status-pages/incidents', { body: { name: 'a', severity: 'HUGE' } })
        expect(severity.status).toBe(400)
        expect((severity.body as Json).message).toMatch(/severity.*CRITICAL, MAJOR, MEDIUM, MINOR/)
        const service = await t.api('/v1/status-pages/incidents', {
          body: { name: 'a', severity: 'MINOR', services: ['no-such-service'] },
        })
        expect(service.status).toBe(400)
        expect((service.body as Json).message).toMatch(/services.*no-such-service/)
      })

      it('404 for an unknown incident id, as JSON', async () => {
        const response = await t.api('/v1/status-pages/incidents/does-not-exist')
        expect(response.status).toBe(404)
        expect(response.body).toMatchObject({ statusCode: 404, error: 'Not Found' })
        expect((response.body as Json).message).toContain('does-not-exist')
      })

      it('adds updates: defaults, status follows, RESOLVED sets duration, reopening clears it', async () => {
        const incident = await createIncident({ name: 'Slow API', severity: 'MAJOR' })
        const path = `/v1/status-pages/incidents/${incident.id}/incident-updates`
        const before = Date.now()
        const first = await t.api(path, { body: { description: 'Found it', status: 'IDENTIFIED' } })
        expect(first.status).toBe(200)
        const update = first.body as Json
        expect(update).toMatchObject({
          description: 'Found it',
          status: 'IDENTIFIED',
          notifySubscribers: false,
        })
        expect(typeof update.id).toBe('string')
        expect(Date.parse(update.publicIncidentUpdateDate as string)).toBeGreaterThanOrEqual(before - 1000)
        let read = (await t.api(`/v1/status-pages/incidents/${incident.id}`)).body as Json
        expect(read.lastUpdateStatus).toBe('IDENTIFIED')
        expect(Date.parse(read.updated_at as string)).toBeGreaterThanOrEqual(
          Date.parse(read.created_at as string),
        )

        const publicDate = '2026-01-02T03:04:05.000Z'
        const second = await t.api(path, {
          body: {
            description: 'Fixed',
            status: 'RESOLVED',
            publicIncidentUpdateDate: publicDate,
            notifySubscribers: true,
          },
        })
        expect(second.body).toMatchObject({
          status: 'RESOLVED',
          publicIncidentUpdateDate: publicDate,
          notifySubscribers: true,
        })
        read = (await t.api(`/v1/status-pages/incidents/${incident.id}`)).body as Json
        expect(read.lastUpdateStatus).toBe('RESOLVED')
        expect(read.duration).toEqual(expect.any(Number))
        expect(read.incidentUpdates).toHaveLength(2)
        expect((read.incidentUpdates as Json[]).map((u) => u.description)).toEqual(['Found it', 'Fixed'])

        const reopen = await t.api(path, { body: { description: 'Back again', status: 'INVESTIGATING' } })
        expect(reopen.status).toBe(200)
        read = (await t.api(`/v1/status-pages/incidents/${incident.id}`)).body as Json
        expect(read.duration).toBeNull()
        // No status: the update carries the incident's current one.
        const note = await t.api(path, { body: { description: 'Still looking' } })
        expect((note.body as Json).status).toBe('INVESTIGATING')
      })

      it('rejects an update without description, with a bad status, a bad date or an unknown field', async () => {
        const incident = await createIncident({ name: 'x', severity: 'MINOR' })
        const path = `/v1/status-pages/incidents/${incident.id}/incident-updates`
        const missing = await t.api(path, { body: { status: 'RESOLVED' } })
        expect(missing.status).toBe(400)
        expect((missing.body as Json).message).toMatch(/description/)
        const status = await t.api(path, { body: { description: 'a', status: 'DONE' } })
        expect(status.status).toBe(400)
        expect((status.body as Json).message).toMatch(/status.*INVESTIGATING/)
        const date = await t.api(path, { body: { description: 'a', publicIncidentUpdateDate: 'yesterday' } })
        expect(date.status).toBe(400)
        const flag = await t.api(path, { body: { description: 'a', notifySubscribers: 'maybe' } })
        expect(flag.status).toBe(400)
        const extra = await t.api(path, { body: { description: 'a', colour: 'red' } })
        expect(extra.status).toBe(400)
        expect((extra.body as Json).message).toMatch(/colour/)
        const notJson = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
          body: '{"description":',
        })
        expect(notJson.status).toBe(400)
        expect(await notJson.json()).toMatchObject({ statusCode: 400 })
        const unknown = await t.api('/v1/status-pages/incidents/nope/incident-updates', {
          body: { description: 'a' },
        })
        expect(unknown.status).toBe(404)
      })

      it('walks 250 incidents with limit=7 while new ones arrive: each old one exactly once, newest first', async () => {
        const fresh = await t.api('/v1/accounts', { body: { name: 'pagination' } })
        const account = (fresh.body as Json).id as string
        const create = async (name: string): Promise<string> => {
          const response = await t.api('/v1/status-pages/incidents', {
            account,
            body: { name, severity: 'MINOR' },
          })
          expect(response.status).toBe(201)
          return (response.body as Json).id as string
        }
        const old = new Set<string>()
        for (let i = 0; i < 250; i += 1) old.add(await create(`old ${i}`))
        const seen: string[] = []
        const created: string[] = []
        let previous: number | undefined
        let nextId: string | null = null
        let pages = 0
        do {
          const query: string = nextId === null ? '' : `&nextId=${encodeURIComponent(nextId)}`
          const response = await t.api(`/v1/status-pages/incidents?limit=7${query}`, { account })
          expect(response.status).toBe(200)
          const page = response.body as { length: number; entries: Json[]; nextId: string | null }
          expect(page.length).toBe(page.entries.length)
          expect(page.length).toBeLessThanOrEqual(7)
          for (const entry of page.entries) {
            const time = Date.parse(entry.created_at as string)
            if (previous !== undefined) expect(time).toBeLessThanOrEqual(previous)
            previous = time
            seen.push(entry.id as string)
          }
          nextId = page.nextId
          // Two new incidents arrive between every two pages.
          created.push(await create(`new ${pages}a`), await create(`new ${pages}b`))
          pages += 1
          expect(pages).toBeLessThan(100)
        } while (nextId !== null)
        const seenOld = seen.filter((id) => old.has(id))
        expect(seenOld.length).toBe(250)
        expect(new Set(seenOld).size).toBe(250)
        expect(new Set(seen).size).toBe(seen.length)
        expect(seen.filter((id) => created.includes(id))).toEqual([])
      })
    })

    describe('heartbeat availability', () => {
      const hour = 3_600_000
      const ping = (checkId: string, id: string, at: number, status: string) =>
        t.api('/v1/agent/results', {
          body: result(id, {
            checkId,
            checkType: 'HEARTBEAT',
            status,
            startedAt: new Date(at).toISOString(),
          }),
        })

      it('ratios over the window and the window of equal length before it; null without data', async () => {
        const now = Date.now()
        for (const [i, status] of ['passed', 'passed', 'failed', 'degraded'].entries()) {
          expect((await ping('hb-1', `hb1-cur-${i}`, now - (i + 1) * hour, status)).status).toBe(201)
        }
        expect((await ping('hb-1', 'hb1-prev-0', now - 30 * hour, 'failed')).status).toBe(201)
        expect((await ping('hb-1', 'hb1-prev-1', now - 31 * hour, 'passed')).status).toBe(201)
        const response = await t.api('/v1/checks/heartbeats/hb-1/availability')
        expect(response.status).toBe(200)
        expect(response.body).toEqual({
          successRatio: { currentPeriod: 75, previousPeriod: 50 },
          totalEntitiesCurrentPeriod: 4,
        })
        const start = new Date(now - 2.5 * hour).toISOString()
        const end = new Date(now).toISOString()
        const windowed = await t.api(
          `/v1/checks/heartbeats/hb-1/availability?startTime=${start}&endTime=${end}`,
        )
        expect(windowed.body).toEqual({
          successRatio: { currentPeriod: 100, previousPeriod: 50 },
          totalEntitiesCurrentPeriod: 2,
        })
        const none = await t.api('/v1/checks/heartbeats/never-pinged/availability')
        expect(none.status).toBe(200)
        expect(none.text).toBe('null')
        // Another account's heartbeat data is not visible.
        const hidden = await t.api('/v1/checks/heartbeats/hb-1/availability', { key: other.key })
        expect(hidden.text).toBe('null')
      })

      it('400 when startTime is not before endTime, or not a date', async () => {
        const same = '2026-01-01T00:00:00Z'
        const equal = await t.api(`/v1/checks/heartbeats/hb-1/availability?startTime=${same}&endTime=${same}`)
        expect(equal.status).toBe(400)
        expect((equal.body as Json).message).toMatch(/startTime/)
        const after = await t.api(
          '/v1/checks/heartbeats/hb-1/availability?startTime=2026-02-01&endTime=2026-01-01',
        )
        expect(after.status).toBe(400)
        const bad = await t.api('/v1/checks/heartbeats/hb-1/availability?startTime=soon')
        expect(bad.status).toBe(400)
        expect((bad.body as Json).message).toMatch(/startTime.*soon/)
      })
    })

    describe('check sessions and the agent exchange', () => {
      const register = (agentId: string, extra: Json = {}, key?: string) =>
        t.api('/v1/agent/register', {
          key,
          body: {
            agentId,
            flavor: 'full',
            version: '7.0.1',
            checkTypes: ['URL', 'MULTI_STEP'],
            runtimes: ['2025.04'],
            ...extra,
          },
        })
      const claim = (agentId: string, extra: Json = {}, key?: string) =>
        t.api('/v1/agent/jobs/claim', { key, body: { agentId, waitSeconds: 0, max: 10, ...extra } })
      const trigger = async (checks: Json[], location?: string, key?: string) => {
        const response = await t.api('/v2/check-sessions/trigger', {
          key,
          body: { checks, ...(location ? { location } : {}) },
        })
        expect(response.status, response.text).toBe(201)
        return response.body as { checkSessionId: string; runIds: string[] }
      }
      const jobsOf = (response: { body: unknown }) => (response.body as { jobs: Json[] }).jobs

      it('completion: 408 while running, then the final status as a JSON string; limits on maxWaitSeconds', async () => {
        const session = await trigger([urlCheck('sess-1')], 'loc-session')
        const path = `/v2/check-sessions/${session.checkSessionId}/completion`
        for (const wait of ['0', '31', 'abc', '1e1']) {
          const response = await t.api(`${path}?maxWaitSeconds=${wait}`)
          expect(response.status, wait).toBe(400)
          expect((response.body as Json).message).toMatch(/maxWaitSeconds/)
        }
        const running = await t.api(`${path}?maxWaitSeconds=1`)
        expect(running.status).toBe(408)
        expect(running.body).toMatchObject({ statusCode: 408 })
        expect((await register('agent-sess', { location: 'loc-session' })).status).toBe(200)
        const jobs = jobsOf(await claim('agent-sess'))
        expect(jobs.map((j) => j.id)).toEqual(session.runIds)
        expect(jobs[0]).toMatchObject({
          testSession: true,
          sessionId: session.checkSessionId,
          check: { logicalId: 'sess-1' },
        })
        // A waiting completion call returns as soon as the result lands.
        const waiting = t.api(`${path}?maxWaitSeconds=30`)
        const posted = await t.api('/v1/agent/results', {
          body: result(session.runIds[0] as string, {
            checkId: 'sess-1',
            status: 'degraded',
            sessionId: session.checkSessionId,
          }),
        })
        expect(posted.status).toBe(201)
        const done = await waiting
        expect(done.status).toBe(200)
        expect(done.text).toBe('"DEGRADED"')
        expect((await t.api(`/v2/check-sessions/nope/completion?maxWaitSeconds=1`)).status).toBe(404)
        expect((await t.api(`${path}?maxWaitSeconds=1`, { key: other.key })).status).toBe(404)
      })

      it('sessions end FAILED when a run failed and CANCELLED when cancelled', async () => {
        const failing = await trigger([urlCheck('f-1'), urlCheck('f-2')], 'loc-fail')
        await register('agent-fail', { location: 'loc-fail' })
        const jobs = jobsOf(await claim('agent-fail'))
        expect(jobs).toHaveLength(2)
        await t.api('/v1/agent/results', {
          body: result(failing.runIds[0] as string, { checkId: 'f-1', status: 'passed' }),
        })
        const half = await t.api(`/v2/check-sessions/${failing.checkSessionId}/completion?maxWaitSeconds=1`)
        expect(half.status).toBe(408)
        await t.api('/v1/agent/results', {
          body: result(failing.runIds[1] as string, { checkId: 'f-2', status: 'failed' }),
        })
        expect((await t.api(`/v2/check-sessions/${failing.checkSessionId}/completion`)).text).toBe('"FAILED"')

        const cancelled = await trigger([urlCheck('c-1')], 'loc-cancel')
        expect(
          (await t.api(`/v2/check-sessions/${cancelled.checkSessionId}/cancel`, { method: 'POST' })).status,
        ).toBe(200)
        expect((await t.api(`/v2/check-sessions/${cancelled.checkSessionId}/completion`)).text).toBe(
          '"CANCELLED"',
        )
        await register('agent-cancel', { location: 'loc-cancel' })
        expect(jobsOf(await claim('agent-cancel'))).toEqual([])
      })

      it('agents get only jobs they can run: check types, runtimes, flavor and location', async () => {
        const multistep = { type: 'MULTI_STEP', logicalId: 'ms', name: 'ms', runtimeId: '2025.04' }
        const newRuntime = { type: 'MULTI_STEP', logicalId: 'ms-new', name: 'ms new', runtimeId: '2026.04' }
        const session = await trigger([urlCheck('u'), multistep, newRuntime], 'loc-caps')
        await register('uptime-agent', {
          location: 'loc-caps',
          flavor: 'uptime',
          checkTypes: ['URL', 'MULTI_STEP'],
        })
        await register('elsewhere', { location: 'loc-other' })
        expect(jobsOf(await claim('elsewhere'))).toEqual([])
        const uptime = jobsOf(await claim('uptime-agent'))
        expect(uptime.map((j) => (j.check as Json).logicalId)).toEqual(['u'])
        await register('full-agent', { location: 'loc-caps' })
        const full = jobsOf(await claim('full-agent'))
        expect(full.map((j) => (j.check as Json).logicalId)).toEqual(['ms'])
        await register('new-agent', { location: 'loc-caps', runtimes: ['2026.04'] })
        expect(jobsOf(await claim('new-agent')).map((j) => (j.check as Json).logicalId)).toEqual(['ms-new'])
        expect(session.runIds).toHaveLength(3)
      })

      it('claims by groups: at most max jobs of each group of check types', async () => {
        const multistep = (id: string) => ({
          type: 'MULTI_STEP',
          logicalId: id,
          name: id,
          runtimeId: '2025.04',
        })
        await trigger(
          [urlCheck('g-u1'), urlCheck('g-u2'), urlCheck('g-u3'), multistep('g-m1'), multistep('g-m2')],
          'loc-groups',
        )
        await register('grouped', { location: 'loc-groups' })
        const groups = [
          { checkTypes: ['URL'], max: 1 },
          { checkTypes: ['MULTI_STEP'], max: 1 },
        ]
        const first = jobsOf(await claim('grouped', { groups }))
        expect(first.map((j) => (j.check as Json).type).sort()).toEqual(['MULTI_STEP', 'URL'])
        const lightOnly = jobsOf(await claim('grouped', { groups: [{ checkTypes: ['URL'], max: 5 }] }))
        const urls = [...first, ...lightOnly].filter((j) => (j.check as Json).type === 'URL')
        expect(lightOnly).toHaveLength(2)
        expect(urls.map((j) => (j.check as Json).logicalId).sort()).toEqual(['g-u1', 'g-u2', 'g-u3'])
        const none = jobsOf(await claim('grouped', { groups: [{ checkTypes: ['DNS'], max: 5 }] }))
        expect(none).toEqual([])
        expect((await claim('grouped', { groups: [{ checkTypes: [], max: 1 }] })).status).toBe(400)
      })

      it('an unregistered agent is told to register (409); bad claim input is 400', async () => {
        const response = await claim('never-registered')
        expect(response.status).toBe(409)
        expect((response.body as Json).message).toMatch(/register/)
        expect(
          (await t.api('/v1/agent/jobs/claim', { body: { agentId: 'a', waitSeconds: 31 } })).status,
        ).toBe(400)
        expect((await t.api('/v1/agent/jobs/claim', { body: {} })).status).toBe(400)
        expect(
          (
            await t.api('/v1/agent/register', {
              body: { agentId: 'a', flavor: 'tiny', version: '1', checkTypes: [] },
            })
          ).status,
        ).toBe(400)
      })

      it('a long-poll claim returns as soon as a job is triggered', async () => {
        await register('poller', { location: 'loc-poll' })
        const pending = claim('poller', { waitSeconds: 20 })
        await new Promise((resolve) => setTimeout(resolve, 300))
        const session = await trigger([urlCheck('poll-1')], 'loc-poll')
        const jobs = jobsOf(await pending)
        expect(jobs.map((j) => j.id)).toEqual(session.runIds)
      })

      it('a job whose lease lapsed runs elsewhere; the holder can renew before that', async () => {
        const session = await trigger([urlCheck('lease-1')], 'loc-lease')
        await register('holder', { location: 'loc-lease' })
        await register('rescuer', { location: 'loc-lease' })
        const [job] = jobsOf(await claim('holder'))
        expect(job?.id).toBe(session.runIds[0])
        expect(jobsOf(await claim('rescuer'))).toEqual([])
        t.clock.advance(200_000)
        const renewed = await t.api(`/v1/agent/jobs/${job?.id}/lease`, { body: { agentId: 'holder' } })
        expect(renewed.status).toBe(200)
        t.clock.advance(200_000)
        expect(jobsOf(await claim('rescuer'))).toEqual([])
        t.clock.advance(101_000)
        const rescued = jobsOf(await claim('rescuer'))
        expect(rescued.map((j) => j.id)).toEqual(session.runIds)
        expect((await t.api(`/v1/agent/jobs/${job?.id}/lease`, { body: { agentId: 'holder' } })).status).toBe(
          409,
        )
        // Both report: the first result counts, the second is a duplicate.
        const first = await t.api('/v1/agent/results', {
          body: result(job?.id as string, { checkId: 'lease-1' }),
        })
        const second = await t.api('/v1/agent/results', {
          body: result(job?.id as string, { checkId: 'lease-1', status: 'failed' }),
        })
        expect([first.status, second.status]).toEqual([201, 200])
        expect(second.body).toMatchObject({ duplicate: true })
        expect((await t.api(`/v2/check-sessions/${session.checkSessionId}/completion`)).text).toBe('"PASSED"')
      })

      it('a job unclaimed for 6 minutes expires: a JOB_EXPIRED result and a TIMED_OUT session', async () => {
        const session = await trigger([urlCheck('expire-1')], 'loc-nobody')
        t.clock.advance(359_000)
        await t.hub.store.sweep()
        expect(
          (await t.api(`/v2/check-sessions/${session.checkSessionId}/completion?maxWaitSeconds=1`)).status,
        ).toBe(408)
        t.clock.advance(2_000)
        expect(await t.hub.store.sweep()).toBeGreaterThanOrEqual(1)
        expect((await t.api(`/v2/check-sessions/${session.checkSessionId}/completion`)).text).toBe(
          '"TIMED_OUT"',
        )
        const results = (await t.api('/v1/check-results/expire-1')).body as { entries: Json[] }
        expect(results.entries[0]).toMatchObject({
          id: session.runIds[0],
          status: 'failed',
          error: { code: 'JOB_EXPIRED' },
        })
        await register('late', { location: 'loc-nobody' })
        expect(jobsOf(await claim('late'))).toEqual([])
      })

      it('results are idempotent by run id, validated, queryable newest first and scoped to the account', async () => {
        const body = result('run-idem-1', { checkId: 'idem' })
        const first = await t.api('/v1/agent/results', { body })
        expect(first.status).toBe(201)
        expect(first.body).toEqual({ id: 'run-idem-1', duplicate: false })
        for (let i = 0; i < 3; i += 1) {
          const again = await t.api('/v1/agent/results', { body: { ...body, status: 'failed' } })
          expect(again.status).toBe(200)
          expect(again.body).toEqual({ id: 'run-idem-1', duplicate: true })
        }
        await t.api('/v1/agent/results', {
          body: result('run-idem-2', {
            checkId: 'idem',
            startedAt: new Date(Date.now() + 1000).toISOString(),
          }),
        })
        const page = (await t.api('/v1/check-results/idem?limit=1')).body as {
          entries: Json[]
          nextId: string
        }
        expect(page.entries.map((e) => e.id)).toEqual(['run-idem-2'])
        const rest = (await t.api(`/v1/check-results/idem?limit=1&nextId=${page.nextId}`)).body as {
          entries: Json[]
        }
        expect(rest.entries).toMatchObject([{ id: 'run-idem-1', status: 'passed' }])
        expect(
          ((await t.api('/v1/check-results/idem', { key: other.key })).body as { entries: Json[] }).entries,
        ).toEqual([])
        const bad = await t.api('/v1/agent/results', { body: { ...body, status: 'sideways' } })
        expect(bad.status).toBe(400)
        expect((bad.body as Json).message).toMatch(/status/)
        const missing = await t.api('/v1/agent/results', { body: { id: 'x' } })
        expect(missing.status).toBe(400)
      })

      it('locations: available while an agent was seen in the last 10 minutes', async () => {
        await register('loc-agent', { location: 'loc-seen' })
        let locations = (await t.api('/v1/locations')).body as Json[]
        expect(locations.find((l) => l.location === 'loc-seen')).toMatchObject({ available: true, agents: 1 })
        t.clock.advance(601_000)
        locations = (await t.api('/v1/locations')).body as Json[]
        expect(locations.find((l) => l.location === 'loc-seen')).toMatchObject({
          available: false,
          agents: 0,
        })
        await claim('loc-agent')
        locations = (await t.api('/v1/locations')).body as Json[]
        expect(locations.find((l) => l.location === 'loc-seen')).toMatchObject({ available: true })
      })

      it('deployed checks run at their private locations on their frequency; redeploying replaces them', async () => {
        const deployed = (logicalId: string, extra: Json = {}) => ({
          ...urlCheck(logicalId),
          frequencySeconds: 60,
          privateLocations: ['loc-deploy'],
          ...extra,
        })
        const first = await t.api('/v1/checks', {
          method: 'PUT',
          body: { checks: [deployed('dep-a'), deployed('dep-b'), deployed('dep-off', { activated: false })] },
        })
        expect(first.status, first.text).toBe(200)
        expect(first.body).toEqual({ created: 3, updated: 0, deleted: 0 })
        expect(((await t.api('/v1/checks')).body as Json[]).map((c) => c.logicalId)).toEqual([
          'dep-a',
          'dep-b',
          'dep-off',
        ])
        expect(((await t.api('/v1/checks', { key: other.key })).body as Json[]).length).toBe(0)
        await register('deploy-agent', { location: 'loc-deploy' })
        await t.hub.store.scheduleDue()
        const firstRound = jobsOf(await claim('deploy-agent'))
        expect(firstRound.map((j) => (j.check as Json).logicalId).sort()).toEqual(['dep-a', 'dep-b'])
        expect(firstRound.every((j) => j.testSession === false && j.sessionId === undefined)).toBe(true)
        await t.hub.store.scheduleDue()
        expect(jobsOf(await claim('deploy-agent'))).toEqual([])
        t.clock.advance(60_000)
        await t.hub.store.scheduleDue()
        expect(jobsOf(await claim('deploy-agent'))).toHaveLength(2)

        const second = await t.api('/v1/checks', { method: 'PUT', body: { checks: [deployed('dep-a')] } })
        expect(second.body).toEqual({ created: 0, updated: 1, deleted: 2 })
        t.clock.advance(60_000)
        await t.hub.store.scheduleDue()
        expect(jobsOf(await claim('deploy-agent')).map((j) => (j.check as Json).logicalId)).toEqual(['dep-a'])

        const twice = await t.api('/v1/checks', {
          method: 'PUT',
          body: { checks: [deployed('x'), deployed('x')] },
        })
        expect(twice.status).toBe(400)
        expect((twice.body as Json).message).toMatch(/logicalId "x" appears twice/)
        const noFrequency = await t.api('/v1/checks', { method: 'PUT', body: { checks: [urlCheck('nf')] } })
        expect(noFrequency.status).toBe(400)
        expect((noFrequency.body as Json).message).toMatch(/frequencySeconds/)
      })

      it('incident updates with notifySubscribers reach webhook subscribers at least once, retried with backoff', async () => {
        const { createServer } = await import('node:http')
        const received: Array<{ delivery: string; body: Json }> = []
        let failuresLeft = 2
        const receiver = createServer((req, res) => {
          let body = ''
          req.on('data', (c) => {
            body += c
          })
          req.on('end', () => {
            received.push({
              delivery: String(req.headers['x-outpost-delivery']),
              body: JSON.parse(body) as Json,
            })
            res.statusCode = failuresLeft-- > 0 ? 503 : 204
            res.end()
          })
        })
        await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
        const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
        try {
          const fresh = (await t.api('/v1/accounts', { body: { name: 'webhooks' } })).body as Json
          const account = fresh.id as string
          expect(
            (await t.api('/v1/status-pages/subscribers', { account, body: { url: 'ftp://nope' } })).status,
          ).toBe(400)
          const subscriber = await t.api('/v1/status-pages/subscribers', { account, body: { url } })
          expect(subscriber.status).toBe(201)
          const incident = (
            await t.api('/v1/status-pages/incidents', {
              account,
              body: { name: 'Hooked', severity: 'MAJOR' },
            })
          ).body as Json
          const path = `/v1/status-pages/incidents/${incident.id}/incident-updates`
          await t.api(path, { account, body: { description: 'quiet', status: 'IDENTIFIED' } })
          await t.api(path, {
            account,
            body: { description: 'tell everyone', status: 'MONITORING', notifySubscribers: true },
          })
          for (let round = 0; round < 10 && received.length < 3; round += 1) {
            await t.hub.runWebhooks()
            // Past the longest backoff of the first retries (base 1 s here).
            t.clock.advance(10_000)
          }
          expect(received).toHaveLength(3)
          expect(new Set(received.map((r) => r.delivery)).size).toBe(1)
          expect(received[2]?.body).toMatchObject({
            event: 'incident.update',
            incident: { id: incident.id, name: 'Hooked', lastUpdateStatus: 'MONITORING' },
            incidentUpdate: { description: 'tell everyone', notifySubscribers: true },
          })
          // Delivered: nothing more is sent.
          t.clock.advance(3_600_000)
          expect(await t.hub.runWebhooks()).toBe(0)
          expect(received).toHaveLength(3)
        } finally {
          await new Promise<void>((resolve) => receiver.close(() => resolve()))
        }
      })

      it('artifacts stream to disk with their sha256; 413 above the limit without reading the body', async () => {
        const payload = Buffer.alloc(3 * 1024 * 1024, 7)
        const upload = await fetch(`${t.url}/v1/agent/artifacts/run-art-1/trace.zip`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
          body: payload,
        })
        expect(upload.status).toBe(201)
        const { createHash } = await import('node:crypto')
        expect(await upload.json()).toMatchObject({
          name: 'trace.zip',
          size: payload.length,
          sha256: createHash('sha256').update(payload).digest('hex'),
        })
        const download = await fetch(`${t.url}/v1/artifacts/run-art-1/trace.zip`, {
          headers: { authorization: `Bearer ${t.key}` },
        })
        expect(download.status).toBe(200)
        expect(Buffer.from(await download.arrayBuffer()).equals(payload)).toBe(true)
        const elsewhere = await fetch(`${t.url}/v1/artifacts/run-art-1/trace.zip`, {
          headers: { authorization: `Bearer ${other.key}` },
        })
        expect(elsewhere.status).toBe(404)
        const tooBig = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(`${t.url}/v1/agent/artifacts/run-art-1/huge.bin`, {
            method: 'PUT',
            headers: {
              authorization: `Bearer ${t.key}`,
              'content-type': 'application/octet-stream',
              'content-length': String(150 * 1024 * 1024 + 1),
            },
          })
          req.on('response', (res) => {
            let body = ''
            res.on('data', (c) => {
              body += c
            })
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
          })
          req.on('error', reject)
          req.write(Buffer.alloc(1024))
        })
        expect(tooBig.status).toBe(413)
        expect(JSON.parse(tooBig.body)).toMatchObject({ statusCode: 413 })
        const badName = await fetch(`${t.url}/v1/agent/artifacts/run-art-1/..%2Fescape`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
          body: 'x',
        })
        expect(badName.status).toBe(400)
      })
    })
  })
}
