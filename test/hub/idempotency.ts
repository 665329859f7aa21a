// Idempotency-Key on the two writes whose ids the hub chooses (incidents, incident updates), run
// against SQLite (idempotency-sqlite.test.ts) and PostgreSQL (idempotency-postgres.test.ts).

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ApiResponse, startTestHub, type TestHub } from './helpers/test-hub.ts'

export interface Backend {
  /** undefined: SQLite in the hub's data dir. */
  databaseUrl(): Promise<string | undefined>
}

type Json = Record<string, unknown>

const INCIDENTS = '/v1/status-pages/incidents'
const DAY_MS = 24 * 60 * 60 * 1000

export function idempotencySuite(name: string, backend: Backend): void {
  describe(`Idempotency-Key on incident writes (${name})`, () => {
    let t: TestHub
    let other: { accountId: string; key: string }
    let serial = 0

    beforeAll(async () => {
      t = await startTestHub({ databaseUrl: await backend.databaseUrl() })
      const account = await t.hub.store.createAccount('other')
      other = { accountId: account.id, key: (await t.hub.store.createApiKey(account.id, 'other')).key }
    })
    afterAll(async () => {
      await t?.close()
    })

    const unique = (what: string) => {
      serial += 1
      return `${what}-${serial}-${Math.random().toString(36).slice(2, 8)}`
    }
    const post = (path: string, body: Json, idempotencyKey?: string, apiKey?: string): Promise<ApiResponse> =>
      t.api(path, {
        body,
        key: apiKey,
        headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
      })
    /** Every incident of the account named `name` (the account has fewer than 100 incidents). */
    const incidentsNamed = async (incidentName: string, apiKey?: string): Promise<Json[]> => {
      const page = await t.api(`${INCIDENTS}?limit=100`, { key: apiKey })
      expect(page.status, page.text).toBe(200)
      return ((page.body as { entries: Json[] }).entries ?? []).filter((i) => i.name === incidentName)
    }
    const updatesOf = async (incidentId: string): Promise<Json[]> => {
      const incident = await t.api(`${INCIDENTS}/${incidentId}`)
      expect(incident.status, incident.text).toBe(200)
      return (incident.body as { incidentUpdates: Json[] }).incidentUpdates
    }

    it('without a key, two identical posts write two incidents (unchanged behaviour)', async () => {
      const incidentName = unique('no-key')
      const first = await post(INCIDENTS, { name: incidentName, severity: 'MINOR' })
      const second = await post(INCIDENTS, { name: incidentName, severity: 'MINOR' })
      expect([first.status, second.status]).toEqual([201, 201])
      expect(first.headers.get('idempotent-replayed')).toBeNull()
      expect((first.body as Json).id).not.toBe((second.body as Json).id)
      expect(await incidentsNamed(incidentName)).toHaveLength(2)
    })

    it('a repeat with the same key and body gets the first answer back, marked replayed, and writes nothing', async () => {
      const incidentName = unique('replay')
      const key = unique('key')
      const body = { name: incidentName, severity: 'MAJOR', description: 'first words', status: 'IDENTIFIED' }
      const first = await post(INCIDENTS, body, key)
      expect(first.status, first.text).toBe(201)
      expect(first.headers.get('idempotent-replayed')).toBeNull()
      expect(first.body).toMatchObject({ name: incidentName, lastUpdateStatus: 'IDENTIFIED' })
      // The same JSON with its keys in another order is the same request.
      const again = await post(
        INCIDENTS,
        { status: 'IDENTIFIED', description: 'first words', severity: 'MAJOR', name: incidentName },
        key,
      )
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.text).toBe(first.text)
      expect(again.headers.get('content-type')).toMatch(/^application\/json/)
      const stored = await incidentsNamed(incidentName)
      expect(stored.map((i) => i.id)).toEqual([(first.body as Json).id])
      expect(await updatesOf(String((first.body as Json).id))).toHaveLength(1)
    })

    it('the same key with a different body is 422 and writes nothing', async () => {
      const incidentName = unique('mismatch')
      const key = unique('key')
      expect((await post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, key)).status).toBe(201)
      const changed = await post(INCIDENTS, { name: incidentName, severity: 'CRITICAL' }, key)
      expect(changed.status, changed.text).toBe(422)
      expect(changed.body).toMatchObject({ statusCode: 422 })
      expect((changed.body as Json).message).toMatch(
        /idempotency-key was already used for a different request/i,
      )
      const stored = await incidentsNamed(incidentName)
      expect(stored).toHaveLength(1)
      expect(stored[0]?.severity).toBe('MINOR')
    })

    it('ten concurrent posts with one key write one incident; all get its id', async () => {
      const incidentName = unique('concurrent')
      const key = unique('key')
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, key)),
      )
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201))
      const ids = new Set(answers.map((a) => (a.body as Json).id))
      expect(ids.size).toBe(1)
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1)
      expect(await incidentsNamed(incidentName)).toHaveLength(1)
    })

    it("another account's same key is independent of this one's", async () => {
      const key = unique('shared-key')
      const mine = await post(INCIDENTS, { name: unique('mine'), severity: 'MINOR' }, key)
      const theirs = await post(INCIDENTS, { name: unique('theirs'), severity: 'MAJOR' }, key, other.key)
      expect([mine.status, theirs.status]).toEqual([201, 201])
      expect(theirs.headers.get('idempotent-replayed')).toBeNull()
      expect((theirs.body as Json).id).not.toBe((mine.body as Json).id)
      // Each account's repeat replays its own answer.
      const theirsAgain = await post(
        INCIDENTS,
        { name: (theirs.body as Json).name as string, severity: 'MAJOR' },
        key,
        other.key,
      )
      expect(theirsAgain.headers.get('idempotent-replayed')).toBe('true')
      expect(theirsAgain.text).toBe(theirs.text)
    })

    it('an invalid key is 400 naming the header and what is allowed, and writes nothing', async () => {
      const incidentName = unique('bad-key')
      for (const bad of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
        const answer = await post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, bad)
        expect(answer.status, JSON.stringify(bad)).toBe(400)
        expect((answer.body as Json).message).toMatch(/idempotency-key .*1 to 255 printable ASCII/)
      }
      expect((await post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, 'x'.repeat(255))).status).toBe(
        201,
      )
      expect((await post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, ' ~!')).status).toBe(201)
      expect(await incidentsNamed(incidentName)).toHaveLength(2)
    })

    it('a 4xx is not recorded: a corrected retry with the same key is processed', async () => {
      const incidentName = unique('corrected')
      const key = unique('key')
      const wrong = await post(
        INCIDENTS,
        { name: incidentName, severity: 'MINOR', services: ['no-such-service'] },
        key,
      )
      expect(wrong.status, wrong.text).toBe(400)
      const right = await post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, key)
      expect(right.status, right.text).toBe(201)
      expect(right.headers.get('idempotent-replayed')).toBeNull()
      expect(await incidentsNamed(incidentName)).toHaveLength(1)
    })

    it('incident updates: replay, 422 on another incident or body, 404 not recorded, concurrent repeats write once', async () => {
      const incident = (await post(INCIDENTS, { name: unique('updated'), severity: 'MINOR' })).body as Json
      const otherIncident = (await post(INCIDENTS, { name: unique('other'), severity: 'MINOR' })).body as Json
      const path = `${INCIDENTS}/${incident.id}/incident-updates`
      const key = unique('update-key')
      const body = { description: 'looking into it', status: 'IDENTIFIED' }
      const first = await post(path, body, key)
      expect(first.status, first.text).toBe(200)
      expect(first.headers.get('idempotent-replayed')).toBeNull()
      const again = await post(path, body, key)
      expect(again.status).toBe(200)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.text).toBe(first.text)
      expect(await updatesOf(String(incident.id))).toHaveLength(1)

      // The key belongs to the route with its path: the same key on another incident is another request.
      const elsewhere = await post(`${INCIDENTS}/${otherIncident.id}/incident-updates`, body, key)
      expect(elsewhere.status, elsewhere.text).toBe(422)
      expect((await post(path, { ...body, status: 'RESOLVED' }, key)).status).toBe(422)
      expect(await updatesOf(String(otherIncident.id))).toHaveLength(0)

      // The same key on the create route is a different route: independent.
      const created = await post(INCIDENTS, { name: unique('same-key-other-route'), severity: 'MINOR' }, key)
      expect(created.status).toBe(201)
      expect(created.headers.get('idempotent-replayed')).toBeNull()

      const missingKey = unique('missing')
      const missing = await post(`${INCIDENTS}/no-such-incident/incident-updates`, body, missingKey)
      expect(missing.status).toBe(404)
      expect((await post(`${INCIDENTS}/no-such-incident/incident-updates`, body, missingKey)).status).toBe(
        404,
      )

      const burstKey = unique('burst')
      const burst = await Promise.all(
        Array.from({ length: 10 }, () =>
          post(path, { description: 'burst', notifySubscribers: false }, burstKey),
        ),
      )
      expect(burst.map((a) => a.status)).toEqual(Array(10).fill(200))
      expect(new Set(burst.map((a) => (a.body as Json).id)).size).toBe(1)
      expect((await updatesOf(String(incident.id))).filter((u) => u.description === 'burst')).toHaveLength(1)
    })

    it('documents the header on both routes in /openapi.json', async () => {
      const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { parameters: Json[]; responses: Json }>>
      }
      for (const operation of [
        doc.paths[INCIDENTS]?.post,
        doc.paths[`${INCIDENTS}/{incidentId}/incident-updates`]?.post,
      ]) {
        const header = operation?.parameters.find((p) => p.name === 'idempotency-key')
        expect(header).toMatchObject({ in: 'header', required: false })
        expect(String(header?.description)).toMatch(/Idempotent-Replayed/)
        expect(operation?.responses).toHaveProperty('422')
      }
    })

    // Last: it moves the hub's clock a day on.
    it('a key is free again after 24 hours, and the periodic cleanup removes expired keys', async () => {
      const incidentName = unique('expiry')
      const key = unique('key')
      const first = await post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, key)
      expect(first.status).toBe(201)
      t.clock.advance(DAY_MS - 60_000)
      expect(
        (await post(INCIDENTS, { name: incidentName, severity: 'MINOR' }, key)).headers.get(
          'idempotent-replayed',
        ),
      ).toBe('true')
      t.clock.advance(60_001)
      const later = await post(INCIDENTS, { name: incidentName, severity: 'CRITICAL' }, key)
      expect(later.status, later.text).toBe(201)
      expect(later.headers.get('idempotent-replayed')).toBeNull()
      expect(await incidentsNamed(incidentName)).toHaveLength(2)
      // Every key of the earlier tests is past its day now; the one just used is not.
      const swept = await t.hub.store.sweepIdempotencyKeys()
      expect(swept).toBeGreaterThan(5)
      expect(await t.hub.store.sweepIdempotencyKeys()).toBe(0)
      const again = await post(INCIDENTS, { name: incidentName, severity: 'CRITICAL' }, key)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.text).toBe(later.text)
    })
  })
}
