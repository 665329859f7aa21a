// Results that reach the hub after it gave up on their run: the sweep records a failed JOB_EXPIRED
// placeholder once a claimed job's lease has been out for HUB_JOB_EXPIRY_SECONDS, and the agent's
// real result (from its spool, after a hub outage or agent downtime) must still be the one kept:
// it replaces the placeholder exactly once, the job's session and heartbeat availability follow,
// and a repeat stays a duplicate. Runs unchanged on SQLite and PostgreSQL (late-results-*.test.ts).

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Backend } from './conformance.ts'
import { startTestHub, type TestHub } from './helpers/test-hub.ts'

type Json = Record<string, unknown>

const LEASE_MS = 300_000
const EXPIRY_MS = 360_000
/** Past the moment the sweep gives up on a claimed job whose lease was never renewed. */
const PAST_EXPIRY_MS = LEASE_MS + EXPIRY_MS + 1_000

function urlCheck(logicalId: string): Json {
  return {
    type: 'URL',
    logicalId,
    name: `check ${logicalId}`,
    request: { url: 'http://127.0.0.1:1/', method: 'GET' },
  }
}

export function lateResults(name: string, backend: Backend): void {
  describe(`late results replace JOB_EXPIRED placeholders (${name})`, () => {
    let t: TestHub

    beforeAll(async () => {
      t = await startTestHub({
        databaseUrl: await backend.databaseUrl(),
        config: { leaseSeconds: LEASE_MS / 1000, jobExpirySeconds: EXPIRY_MS / 1000 },
      })
    })
    afterAll(async () => {
      await t?.close()
    })

    const register = async (agentId: string, location: string, checkTypes = ['URL']) => {
      const response = await t.api('/v1/agent/register', {
        body: { agentId, flavor: 'full', version: '7.0.1', location, checkTypes },
      })
      expect(response.status, response.text).toBe(200)
    }
    const claim = async (agentId: string): Promise<Json[]> => {
      const response = await t.api('/v1/agent/jobs/claim', { body: { agentId, waitSeconds: 0, max: 100 } })
      expect(response.status, response.text).toBe(200)
      return (response.body as { jobs: Json[] }).jobs
    }
    const trigger = async (checks: Json[], location: string) => {
      const response = await t.api('/v2/check-sessions/trigger', { body: { checks, location } })
      expect(response.status, response.text).toBe(201)
      return response.body as { checkSessionId: string; runIds: string[] }
    }
    const completion = async (sessionId: string) =>
      (await t.api(`/v2/check-sessions/${sessionId}/completion?maxWaitSeconds=1`)).text
    const resultsOf = async (checkId: string): Promise<Json[]> =>
      ((await t.api(`/v1/check-results/${checkId}?limit=100`)).body as { entries: Json[] }).entries
    /** What the agent that ran the job reports: it started before the hub gave up on the run. */
    const realResult = (id: string, checkId: string, agentId: string, overrides: Json = {}): Json => ({
      id,
      checkId,
      checkType: 'URL',
      name: `check ${checkId}`,
      status: 'passed',
      startedAt: new Date(t.clock.now() - PAST_EXPIRY_MS + 5_000).toISOString(),
      durationMs: 12,
      location: 'private',
      attempt: 1,
      assertions: [],
      artifacts: [],
      agent: { id: agentId, version: '7.0.1', flavor: 'full' },
      ...overrides,
    })
    const post = (body: Json) => t.api('/v1/agent/results', { body })

    it('the real result replaces the placeholder once, the session follows it, a repeat is a duplicate', async () => {
      const session = await trigger([urlCheck('late-1'), urlCheck('late-2')], 'loc-late')
      const [late, onTime] = session.runIds as [string, string]
      await register('late-agent', 'loc-late')
      expect((await claim('late-agent')).map((j) => j.id).sort()).toEqual([late, onTime].sort())
      expect((await post(realResult(onTime, 'late-2', 'late-agent'))).status).toBe(201)
      // The agent goes silent: no renewal, no result, for longer than lease + expiry.
      t.clock.advance(PAST_EXPIRY_MS)
      expect(await t.hub.store.sweep()).toBeGreaterThanOrEqual(1)
      expect(await completion(session.checkSessionId)).toBe('"TIMED_OUT"')
      const [placeholder] = await resultsOf('late-1')
      expect(placeholder).toMatchObject({ id: late, status: 'failed', error: { code: 'JOB_EXPIRED' } })
      // It says what happened: an agent took the job and went silent (not "nobody claimed it").
      expect(placeholder?.error).toMatchObject({
        message: expect.stringMatching(
          /^agent late-agent claimed the job and sent neither its result nor a lease renewal .* within 360 s/,
        ),
      })
      expect((await t.api(`/v1/agent/jobs/${late}/lease`, { body: { agentId: 'late-agent' } })).status).toBe(
        409,
      )

      const real = realResult(late, 'late-1', 'late-agent', { durationMs: 4321 })
      const first = await post(real)
      expect(first.status, first.text).toBe(201)
      expect(first.body).toEqual({ id: late, duplicate: false, replaced: true })
      const again = await post(real)
      expect(again.status).toBe(200)
      expect(again.body).toEqual({ id: late, duplicate: true })
      const other = await post(realResult(late, 'late-1', 'another-agent', { status: 'failed' }))
      expect(other.status).toBe(200)
      expect(other.body).toEqual({ id: late, duplicate: true })

      const stored = await resultsOf('late-1')
      expect(stored).toHaveLength(1)
      expect(stored[0]).toEqual(real)
      expect(await completion(session.checkSessionId)).toBe('"PASSED"')
      // The job is done: a later sweep leaves the run alone.
      t.clock.advance(PAST_EXPIRY_MS)
      await t.hub.store.sweep()
      expect(await resultsOf('late-1')).toEqual([real])
      expect(await completion(session.checkSessionId)).toBe('"PASSED"')
    })

    it("a result naming the run id with another check is a duplicate: the placeholder stays in its check's history", async () => {
      const session = await trigger([urlCheck('own-check')], 'loc-own-check')
      const runId = session.runIds[0] as string
      t.clock.advance(EXPIRY_MS + 1_000)
      await t.hub.store.sweep()
      const [placeholder] = await resultsOf('own-check')
      expect(placeholder).toMatchObject({ id: runId, error: { code: 'JOB_EXPIRED' } })

      const stray = await post(realResult(runId, 'other-check', 'stray-agent'))
      expect(stray.status, stray.text).toBe(200)
      expect(stray.body).toEqual({ id: runId, duplicate: true })
      const strayType = await post(realResult(runId, 'own-check', 'stray-agent', { checkType: 'HEARTBEAT' }))
      expect(strayType.body).toEqual({ id: runId, duplicate: true })
      expect(await resultsOf('other-check')).toEqual([])
      expect(await resultsOf('own-check')).toEqual([placeholder])
      expect(await completion(session.checkSessionId)).toBe('"TIMED_OUT"')

      // The run's own result still takes the placeholder's place.
      const real = realResult(runId, 'own-check', 'own-agent')
      expect((await post(real)).body).toEqual({ id: runId, duplicate: false, replaced: true })
      expect(await resultsOf('own-check')).toEqual([real])
      expect(await completion(session.checkSessionId)).toBe('"PASSED"')
    })

    it('a session stays TIMED_OUT while another run of it has only its placeholder', async () => {
      const session = await trigger([urlCheck('partial-1'), urlCheck('partial-2')], 'loc-partial')
      const [a, b] = session.runIds as [string, string]
      await register('partial-agent', 'loc-partial')
      expect(await claim('partial-agent')).toHaveLength(2)
      t.clock.advance(PAST_EXPIRY_MS)
      await t.hub.store.sweep()
      expect(await completion(session.checkSessionId)).toBe('"TIMED_OUT"')
      expect((await post(realResult(a, 'partial-1', 'partial-agent', { status: 'failed' }))).status).toBe(201)
      expect(await completion(session.checkSessionId)).toBe('"TIMED_OUT"')
      expect((await post(realResult(b, 'partial-2', 'partial-agent'))).status).toBe(201)
      // Every run reported after all: the session ends as its results say.
      expect(await completion(session.checkSessionId)).toBe('"FAILED"')
    })

    it('a job nobody claimed says so, and a late result still replaces it', async () => {
      const session = await trigger([urlCheck('unclaimed-1')], 'loc-unclaimed')
      t.clock.advance(EXPIRY_MS + 1_000)
      await t.hub.store.sweep()
      const [placeholder] = await resultsOf('unclaimed-1')
      expect(placeholder).toMatchObject({
        error: {
          code: 'JOB_EXPIRED',
          message: 'no agent at location loc-unclaimed claimed the job within 360 s',
        },
      })
      const real = realResult(session.runIds[0] as string, 'unclaimed-1', 'some-agent')
      expect((await post(real)).body).toMatchObject({ replaced: true })
      expect(await resultsOf('unclaimed-1')).toEqual([real])
    })

    it('concurrent deliveries of different late results: exactly one replaces the placeholder', async () => {
      const session = await trigger([urlCheck('race-1')], 'loc-race')
      const runId = session.runIds[0] as string
      await register('race-agent', 'loc-race')
      expect(await claim('race-agent')).toHaveLength(1)
      t.clock.advance(PAST_EXPIRY_MS)
      await t.hub.store.sweep()
      // Retries and other replicas: each post differs (durationMs), so the stored one is identifiable.
      const posts = Array.from({ length: 12 }, (_, i) =>
        realResult(runId, 'race-1', `race-agent-${i}`, { durationMs: 1000 + i }),
      )
      const answers = await Promise.all(posts.map(post))
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
      expect(answers.filter((a) => a.status === 200)).toHaveLength(11)
      const winner = posts[answers.findIndex((a) => a.status === 201)]
      expect(answers.filter((a) => (a.body as Json).duplicate === true)).toHaveLength(11)
      expect(await resultsOf('race-1')).toEqual([winner])
      expect(await completion(session.checkSessionId)).toBe('"PASSED"')
    })

    it('a sweep racing the deliveries of a whole session never loses a result and never fails a post', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `sweep-race-${i}`)
      const session = await trigger(ids.map(urlCheck), 'loc-sweep-race')
      await register('sweep-race-agent', 'loc-sweep-race')
      expect(await claim('sweep-race-agent')).toHaveLength(ids.length)
      t.clock.advance(PAST_EXPIRY_MS)
      const posts = ids.map((checkId, i) =>
        realResult(session.runIds[i] as string, checkId, 'sweep-race-agent'),
      )
      // Each run is either reported before the sweep reaches its job (created) or after (replaced).
      const [, ...answers] = await Promise.all([t.hub.store.sweep(), ...posts.map(post)])
      for (const answer of answers) expect(answer.status, answer.text).toBe(201)
      for (const [i, checkId] of ids.entries()) expect(await resultsOf(checkId)).toEqual([posts[i]])
      expect(await completion(session.checkSessionId)).toBe('"PASSED"')
    })

    it('sessions cancelled while their results arrive: every post is stored, none fails', async () => {
      await register('cancel-race-agent', 'loc-cancel-race')
      const rounds = await Promise.all(
        Array.from({ length: 5 }, async (_, round) => {
          const ids = Array.from({ length: 10 }, (_, i) => `cancel-race-${round}-${i}`)
          return { ids, session: await trigger(ids.map(urlCheck), 'loc-cancel-race') }
        }),
      )
      expect(await claim('cancel-race-agent')).toHaveLength(50)
      const posts = rounds.map(({ ids, session }) =>
        ids.map((checkId, i) => realResult(session.runIds[i] as string, checkId, 'cancel-race-agent')),
      )
      // Each cancel goes out amid its session's results, all sessions at once.
      const requests = rounds.flatMap(({ session }, round) => {
        const own = (posts[round] ?? []).map(post)
        const cancel = t.api(`/v2/check-sessions/${session.checkSessionId}/cancel`, { method: 'POST' })
        return [...own.slice(0, 5), cancel, ...own.slice(5)]
      })
      for (const answer of await Promise.all(requests)) expect(answer.status, answer.text).toBeLessThan(300)
      for (const [round, { ids, session }] of rounds.entries()) {
        for (const [i, checkId] of ids.entries())
          expect(await resultsOf(checkId)).toEqual([posts[round]?.[i]])
        // Cancelled unless every result came first.
        expect(['"CANCELLED"', '"PASSED"']).toContain(await completion(session.checkSessionId))
      }
    })

    it('heartbeat availability counts the real result, not the placeholder', async () => {
      const location = 'loc-hb-late'
      const { id: sessionId, runIds } = await t.hub.store.createSession(
        t.accountId,
        [{ type: 'HEARTBEAT', logicalId: 'hb-late', name: 'hb late' }],
        location,
      )
      await register('hb-agent', location, ['HEARTBEAT'])
      expect(await claim('hb-agent')).toHaveLength(1)
      t.clock.advance(PAST_EXPIRY_MS)
      await t.hub.store.sweep()
      const availability = async () => (await t.api('/v1/checks/heartbeats/hb-late/availability')).body
      expect(await availability()).toEqual({
        successRatio: { currentPeriod: 0, previousPeriod: 0 },
        totalEntitiesCurrentPeriod: 1,
      })
      const real = realResult(runIds[0] as string, 'hb-late', 'hb-agent', { checkType: 'HEARTBEAT' })
      expect((await post(real)).body).toMatchObject({ replaced: true })
      expect(await availability()).toEqual({
        successRatio: { currentPeriod: 100, previousPeriod: 0 },
        totalEntitiesCurrentPeriod: 1,
      })
      expect(await completion(sessionId)).toBe('"PASSED"')
    })
  })
}
