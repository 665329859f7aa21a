// Heartbeat status as pure functions of (state, timing, now), checked against healthchecks.io's rules.

import { describe, expect, it } from 'vitest'
import {
  applyPing,
  type HeartbeatState,
  newHeartbeatState,
  type PingInput,
} from '../../src/heartbeat/state.ts'
import { downAt, graceStartAt, periodVerdict, statusAt } from '../../src/heartbeat/status.ts'

const T0 = Date.parse('2026-03-01T00:00:00.000Z')
const timing = { periodMs: 60_000, graceMs: 30_000 }

function pinged(...pings: Partial<PingInput>[]): HeartbeatState {
  return pings.reduce<HeartbeatState>(
    (state, ping) => applyPing(state, { at: T0, kind: 'success', method: 'GET', ...ping }),
    newHeartbeatState('tok', 'hb', T0),
  )
}

describe('statusAt', () => {
  it('is new until period + grace after registration, then down', () => {
    const state = newHeartbeatState('tok', 'hb', T0)
    expect(statusAt(state, timing, T0 + 89_999)).toBe('new')
    expect(statusAt(state, timing, T0 + 90_000)).toBe('down')
  })

  it('goes up, grace, down as time passes after a success', () => {
    const state = pinged({ at: T0 + 10_000 })
    expect(statusAt(state, timing, T0 + 69_999)).toBe('up')
    expect(statusAt(state, timing, T0 + 70_000)).toBe('grace')
    expect(statusAt(state, timing, T0 + 99_999)).toBe('grace')
    expect(statusAt(state, timing, T0 + 100_000)).toBe('down')
    expect(graceStartAt(state, timing)).toBe(T0 + 70_000)
    expect(downAt(state, timing)).toBe(T0 + 100_000)
  })

  it('is down right after a fail ping and up again after a success', () => {
    const failed = pinged({ at: T0 }, { at: T0 + 1000, kind: 'fail' })
    expect(statusAt(failed, timing, T0 + 1000)).toBe('down')
    expect(
      statusAt(applyPing(failed, { at: T0 + 2000, kind: 'success', method: 'GET' }), timing, T0 + 2000),
    ).toBe('up')
  })

  it('gives a started run the grace time to end, counted from its start', () => {
    const state = pinged({ at: T0 }, { at: T0 + 5000, kind: 'start' })
    expect(statusAt(state, timing, T0 + 34_999)).toBe('started')
    expect(statusAt(state, timing, T0 + 35_000)).toBe('down')
  })

  it('ignores log pings', () => {
    const state = pinged({ at: T0 }, { at: T0 + 80_000, kind: 'log', body: 'still alive?' })
    expect(state.lastPingAt).toBe(T0)
    expect(statusAt(state, timing, T0 + 90_000)).toBe('down')
  })
})

describe('applyPing', () => {
  it('pairs ends with starts by rid and forgets starts older than 72 hours', () => {
    let state = pinged({ at: T0, kind: 'start', rid: 'r1' })
    state = applyPing(state, { at: T0 + 73 * 3_600_000, kind: 'success', method: 'GET', rid: 'r1' })
    expect(state.lastDurationMs).toBeNull()
    state = applyPing(state, { at: T0 + 74 * 3_600_000, kind: 'start', method: 'GET' })
    state = applyPing(state, { at: T0 + 74 * 3_600_000 + 1234, kind: 'fail', method: 'GET', exitStatus: 2 })
    expect(state).toMatchObject({ lastDurationMs: 1234, lastExitStatus: 2, lastPingKind: 'fail' })
  })

  it('keeps the last 20 pings', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ at: T0 + i }))
    const state = pinged(...many)
    expect(state.recentPings).toHaveLength(20)
    expect(state.recentPings[0]?.at).toBe(T0 + 5)
    expect(state.pingCount).toBe(25)
  })
})

describe('periodVerdict', () => {
  it('fails for a fail ping inside the window even after a later success, not for one before it', () => {
    const state = pinged({ at: T0 }, { at: T0 + 10_000, kind: 'fail' }, { at: T0 + 20_000 })
    expect(periodVerdict(state, timing, T0 + 30_000, T0 + 5_000)).toMatchObject({
      passed: false,
      reason: 'FAIL_PING',
    })
    expect(periodVerdict(state, timing, T0 + 30_000, T0 + 10_000)).toMatchObject({
      passed: true,
      status: 'up',
    })
  })

  it('explains a missed period with the due time', () => {
    const verdict = periodVerdict(pinged({ at: T0 }), timing, T0 + 90_000, T0 + 30_000)
    expect(verdict).toEqual({
      passed: false,
      status: 'down',
      reason: 'MISSED',
      message:
        'no success ping since 2026-03-01T00:00:00.000Z; it was due by 2026-03-01T00:01:30.000Z (period 60 s + grace 30 s)',
    })
  })

  it('names the exit status of a failing run that has not recovered', () => {
    const state = pinged({ at: T0, kind: 'fail', exitStatus: 3 })
    expect(periodVerdict(state, timing, T0 + 300_000, T0 + 200_000).message).toBe(
      'the last ping was a fail ping at 2026-03-01T00:00:00.000Z (exit status 3), with no success since',
    )
  })
})
