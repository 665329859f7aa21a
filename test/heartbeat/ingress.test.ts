// The heartbeat ingress over real HTTP on loopback, its state on disk, and the HEARTBEAT probe judging
// periods from it. Time is a clock the test moves, so "an hour later" takes no time.

import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHeartbeatServer, type HeartbeatServer } from '../../src/heartbeat/server.ts'
import type { HeartbeatState } from '../../src/heartbeat/state.ts'
import { type HeartbeatStore, openHeartbeatStore } from '../../src/heartbeat/store.ts'
import type { HeartbeatCheck } from '../../src/model/checks.ts'
import type { ProbeContext, ProbeOutcome } from '../../src/model/probe.ts'
import { createHeartbeatProbe } from '../../src/probes/heartbeat.ts'
import { createScrubber, SCRUBBED } from '../../src/secrets/scrubber.ts'

const SECRET = 'hb-secret-Value-42'
const T0 = Date.parse('2026-03-01T12:00:00.000Z')
const MINUTE = 60_000

function heartbeat(overrides: Partial<HeartbeatCheck> = {}): HeartbeatCheck {
  return {
    type: 'HEARTBEAT',
    logicalId: 'nightly-backup',
    name: 'Nightly backup',
    activated: true,
    muted: false,
    tags: [],
    frequencySeconds: 3600,
    locations: [],
    privateLocations: [],
    retryStrategy: {
      type: 'NONE',
      baseBackoffSeconds: 0,
      maxRetries: 0,
      maxDurationSeconds: 0,
      sameRegion: true,
    },
    environmentVariables: [],
    period: 1,
    periodUnit: 'hours',
    grace: 10,
    graceUnit: 'minutes',
    pingToken: 'tok-backup-1',
    ...overrides,
  }
}

describe('heartbeat ingress and HEARTBEAT probe', () => {
  let dataDir: string
  let clock: number
  let store: HeartbeatStore
  let server: HeartbeatServer
  let base: string
  const check = heartbeat()
  const now = (): number => clock
  const log = pino({ level: 'silent' })
  const context = (testSession = false): ProbeContext => ({
    signal: AbortSignal.timeout(10_000),
    log,
    runDir: join(tmpdir(), 'hb-run'),
    testSession,
  })

  async function start(): Promise<void> {
    store = await openHeartbeatStore({ dataDir, now })
    await store.setChecks([check])
    server = createHeartbeatServer({
      store,
      scrubber: createScrubber([SECRET]),
      log,
      port: 0,
      host: '127.0.0.1',
      now,
    })
    base = (await server.listen()).url
  }

  const ping = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${base}${path}`, init)
  const evaluate = (testSession = false): Promise<ProbeOutcome> =>
    createHeartbeatProbe({ store, now })(check, context(testSession))
  const state = (): HeartbeatState => store.get(check.pingToken)!

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outpost-heartbeat-'))
    clock = T0
    await start()
  })

  afterEach(async () => {
    await server.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('records a success ping by GET, POST and HEAD, answering OK with Ping-Body-Limit', async () => {
    for (const method of ['GET', 'POST', 'HEAD']) {
      clock += 1000
      const response = await ping('/ping/tok-backup-1', { method })
      expect(response.status).toBe(200)
      expect(response.headers.get('ping-body-limit')).toBe('10000')
      expect(await response.text()).toBe(method === 'HEAD' ? '' : 'OK')
    }
    expect(state()).toMatchObject({ pingCount: 3, lastPingKind: 'success', lastSuccessAt: T0 + 3000 })
    expect(state().recentPings.map((p) => p.method)).toEqual(['GET', 'POST', 'HEAD'])
  })

  it('answers 404 for an unknown token and records nothing', async () => {
    const response = await ping('/ping/no-such-token')
    expect(response.status).toBe(404)
    expect(await response.text()).toBe('not found')
    expect(store.get('no-such-token')).toBeUndefined()
    expect(state().pingCount).toBe(0)
  })

  it('pairs a start with its end by rid and measures the duration', async () => {
    const a = '3f1b6a52-8c1e-4b7e-9a59-0d1f6a1c2b3d'
    const b = 'b8c9d0e1-2f3a-4b5c-8d6e-7f8091a2b3c4'
    await ping(`/ping/tok-backup-1/start?rid=${a}`)
    clock += 5000
    await ping(`/ping/tok-backup-1/start?rid=${b}`)
    expect(state().runningSince).toBe(T0 + 5000)
    clock += 20_000
    // b ends first: its own start, not the latest one, gives the duration.
    await ping(`/ping/tok-backup-1?rid=${b}`)
    expect(state()).toMatchObject({ lastDurationMs: 20_000, lastPingKind: 'success', runningSince: null })
    clock += 10_000
    await ping(`/ping/tok-backup-1/0?rid=${a}`)
    expect(state().lastDurationMs).toBe(35_000)
    expect(state().recentPings.at(-1)).toMatchObject({
      kind: 'success',
      exitStatus: 0,
      rid: a,
      durationMs: 35_000,
    })
    expect((await ping('/ping/tok-backup-1/start?rid=not-a-uuid')).status).toBe(400)
  })

  it('treats /fail and exit statuses 1..255 as failures, 0 as success, above 255 as a bad request', async () => {
    await ping('/ping/tok-backup-1/fail', { method: 'POST' })
    expect(state()).toMatchObject({ lastPingKind: 'fail', lastFailAt: T0, lastExitStatus: null })
    clock += 1000
    expect((await ping('/ping/tok-backup-1/0')).status).toBe(200)
    expect(state()).toMatchObject({ lastPingKind: 'success', lastExitStatus: 0 })
    clock += 1000
    expect((await ping('/ping/tok-backup-1/255')).status).toBe(200)
    expect(state()).toMatchObject({ lastPingKind: 'fail', lastExitStatus: 255, lastFailAt: T0 + 2000 })
    const tooHigh = await ping('/ping/tok-backup-1/256')
    expect(tooHigh.status).toBe(400)
    expect(await tooHigh.text()).toBe('invalid exit status 256: allowed 0 to 255')
    expect((await ping('/ping/tok-backup-1/whatever')).status).toBe(404)
    expect(state().pingCount).toBe(3)
  })

  it('keeps a body up to the limit, scrubbed, and cuts a longer one', async () => {
    const body = `backup done; token=${SECRET}\n${'x'.repeat(20_000)}`
    const response = await ping('/ping/tok-backup-1', {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('ping-body-limit')).toBe('10000')
    const kept = state().recentPings.at(-1)!
    expect(kept.bodyBytes).toBe(Buffer.byteLength(body))
    expect(Buffer.byteLength(kept.body!)).toBe(10_000)
    expect(kept.body).toContain(`token=${SCRUBBED}`)
    expect(kept.body).not.toContain(SECRET)

    // A secret straddling the cut is scrubbed, not left half visible.
    clock += 1000
    const straddling = `${'y'.repeat(9_990)}${SECRET}tail`
    await ping('/ping/tok-backup-1/log', {
      method: 'POST',
      body: straddling,
      headers: { 'content-type': 'application/json' },
    })
    const cut = state().recentPings.at(-1)!
    expect(cut.kind).toBe('log')
    expect(cut.body).not.toContain(SECRET.slice(0, 10))
    expect(cut.body?.startsWith('y'.repeat(9_990))).toBe(true)
    // A log ping changes no status.
    expect(state().lastPingKind).toBe('success')
  })

  it('refuses a request body over the request limit with 413, and records nothing', async () => {
    const small = createHeartbeatServer({
      store,
      scrubber: createScrubber([]),
      log,
      port: 0,
      host: '127.0.0.1',
      now,
      maxRequestBytes: 50_000,
    })
    const { url } = await small.listen()
    try {
      const response = await fetch(`${url}/ping/tok-backup-1`, { method: 'POST', body: 'z'.repeat(60_000) })
      expect(response.status).toBe(413)
      expect(state().pingCount).toBe(0)
    } finally {
      await small.close()
    }
  })

  it('passes a period with a success ping, passes in grace, fails once period + grace went by', async () => {
    await ping('/ping/tok-backup-1')
    clock = T0 + 60 * MINUTE
    const onTime = await evaluate()
    expect(onTime.status).toBe('passed')
    expect(onTime.details?.heartbeat).toMatchObject({
      status: 'grace',
      lastSuccessAt: new Date(T0).toISOString(),
    })

    clock = T0 + 69 * MINUTE
    expect((await evaluate()).status).toBe('passed')

    clock = T0 + 70 * MINUTE
    const missed = await evaluate()
    expect(missed.status).toBe('failed')
    expect(missed.error?.code).toBe('HEARTBEAT_MISSED')
    expect(missed.error?.message).toContain(
      'it was due by 2026-03-01T13:10:00.000Z (period 3600 s + grace 600 s)',
    )

    await ping('/ping/tok-backup-1')
    clock = T0 + 130 * MINUTE
    expect((await evaluate()).status).toBe('passed')
  })

  it('fails the period in which a fail ping came, even when a success followed it', async () => {
    await ping('/ping/tok-backup-1')
    clock += 30 * MINUTE
    expect((await evaluate()).status).toBe('passed')
    clock += 10 * MINUTE
    await ping('/ping/tok-backup-1/3')
    clock += 5 * MINUTE
    await ping('/ping/tok-backup-1')
    clock += 15 * MINUTE
    const period = await evaluate()
    expect(period.status).toBe('failed')
    expect(period.error?.code).toBe('HEARTBEAT_FAILED')
    expect(period.error?.message).toContain('a fail ping arrived at 2026-03-01T12:40:00.000Z')
    // The next period starts after that evaluation: the old fail no longer counts.
    clock += 30 * MINUTE
    expect((await evaluate()).status).toBe('passed')
  })

  it('fails a run that started and did not end within the grace time', async () => {
    await ping('/ping/tok-backup-1')
    clock += 20 * MINUTE
    await ping('/ping/tok-backup-1/start')
    clock += 9 * MINUTE
    expect((await evaluate()).details?.heartbeat).toMatchObject({ status: 'started' })
    clock += 1 * MINUTE
    const stuck = await evaluate()
    expect(stuck.status).toBe('failed')
    expect(stuck.error?.code).toBe('HEARTBEAT_RUN_TOO_LONG')
  })

  it('counts a heartbeat that never pinged from when it was registered', async () => {
    clock = T0 + 60 * MINUTE
    const waiting = await evaluate()
    expect(waiting.status).toBe('passed')
    expect(waiting.details?.heartbeat).toMatchObject({ status: 'new', pingCount: 0 })
    clock = T0 + 70 * MINUTE
    const never = await evaluate()
    expect(never.status).toBe('failed')
    expect(never.error?.message).toContain('since the check was registered at 2026-03-01T12:00:00.000Z')
  })

  it('keeps pings and evaluation state across a restart', async () => {
    const rid = '0e6c1f7a-1111-4222-8333-944455556666'
    await ping(`/ping/tok-backup-1/start?rid=${rid}`)
    clock += 5 * MINUTE
    expect((await evaluate()).status).toBe('passed')

    await server.close()
    clock += 3 * MINUTE
    await start()
    expect((await readdir(join(dataDir, 'heartbeats'))).filter((f) => f.endsWith('.tmp'))).toEqual([])
    expect(state()).toMatchObject({ createdAt: T0, runningSince: T0, lastEvaluatedAt: T0 + 5 * MINUTE })

    // The end ping after the restart still pairs with the start from before it.
    await ping(`/ping/tok-backup-1?rid=${rid}`)
    expect(state().lastDurationMs).toBe(8 * MINUTE)
    clock += 60 * MINUTE
    expect((await evaluate()).status).toBe('passed')
    clock += 11 * MINUTE
    expect((await evaluate()).status).toBe('failed')
  })

  it('does not move the evaluation window for a test session', async () => {
    clock += 5 * MINUTE
    await evaluate(true)
    expect(state().lastEvaluatedAt).toBeNull()
    await evaluate(false)
    expect(state().lastEvaluatedAt).toBe(clock)
  })

  it('refuses a heartbeat with bad timing fields, naming them', async () => {
    const outcome = await createHeartbeatProbe({ store, now })(
      heartbeat({ period: 0, graceUnit: 'weeks' as HeartbeatCheck['graceUnit'] }),
      context(),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('INVALID_CHECK')
    expect(outcome.error?.message).toContain('period is 0; allowed: a number greater than 0')
    expect(outcome.error?.message).toContain('graceUnit is "weeks"; allowed: seconds, minutes, hours, days')
  })
})
