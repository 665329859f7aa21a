// Heartbeat status as small pure functions of (state, timing, now), after healthchecks.io's
// hc/api/models.py: get_grace_start, get_status. One deliberate difference: a heartbeat that never
// pinged counts from when the agent first knew it, so a job that never runs is reported, not "new" forever.

import type { HeartbeatState } from './state.ts'
import type { HeartbeatTiming } from './timing.ts'

export type HeartbeatStatus = 'new' | 'up' | 'started' | 'grace' | 'down'

/** When the heartbeat becomes late: a period after the last ping, or at once when a run has started. */
export function graceStartAt(state: HeartbeatState, timing: HeartbeatTiming): number {
  const from = state.lastPingAt ?? state.createdAt
  const dueAt = from + timing.periodMs
  // A started run must end within the grace time (healthchecks.io: min(last_ping + timeout, last_start)).
  if (state.runningSince !== null && state.lastPingKind !== 'fail') return Math.min(dueAt, state.runningSince)
  return dueAt
}

/** When the heartbeat is down unless a ping arrives first. */
export function downAt(state: HeartbeatState, timing: HeartbeatTiming): number {
  return graceStartAt(state, timing) + timing.graceMs
}

export function statusAt(state: HeartbeatState, timing: HeartbeatTiming, now: number): HeartbeatStatus {
  if (state.lastPingKind === 'fail') return 'down'
  if (now >= downAt(state, timing)) return 'down'
  if (state.lastPingKind === null && state.runningSince === null) return 'new'
  if (state.runningSince !== null) return 'started'
  if (now >= graceStartAt(state, timing)) return 'grace'
  return 'up'
}

export type VerdictReason = 'FAIL_PING' | 'MISSED' | 'RUN_TOO_LONG'

export interface PeriodVerdict {
  passed: boolean
  status: HeartbeatStatus
  reason?: VerdictReason
  message?: string
}

/**
 * The result of the period that ends at `now` and began after `windowStart`: passed when a success ping
 * arrived within period + grace, failed when none did, or when a fail ping came during the period (even if
 * a success followed it, so that a failure between two evaluations is never lost).
 */
export function periodVerdict(
  state: HeartbeatState,
  timing: HeartbeatTiming,
  now: number,
  windowStart: number,
): PeriodVerdict {
  const status = statusAt(state, timing, now)
  const exit =
    state.lastExitStatus !== null && state.lastExitStatus > 0 ? ` (exit status ${state.lastExitStatus})` : ''
  if (state.lastFailAt !== null && state.lastFailAt > windowStart && state.lastFailAt <= now) {
    return {
      passed: false,
      status,
      reason: 'FAIL_PING',
      message: `a fail ping arrived at ${iso(state.lastFailAt)}${state.lastPingKind === 'fail' ? exit : ''}`,
    }
  }
  if (status !== 'down') return { passed: true, status }
  if (state.lastPingKind === 'fail') {
    return {
      passed: false,
      status,
      reason: 'FAIL_PING',
      message: `the last ping was a fail ping at ${iso(state.lastFailAt ?? state.lastPingAt ?? now)}${exit}, with no success since`,
    }
  }
  if (state.runningSince !== null && state.runningSince + timing.graceMs <= now) {
    return {
      passed: false,
      status,
      reason: 'RUN_TOO_LONG',
      message: `a run started at ${iso(state.runningSince)} and did not end within the grace time (${seconds(timing.graceMs)})`,
    }
  }
  const since =
    state.lastPingAt === null
      ? `since the check was registered at ${iso(state.createdAt)}`
      : `since ${iso(state.lastPingAt)}`
  return {
    passed: false,
    status,
    reason: 'MISSED',
    message: `no success ping ${since}; it was due by ${iso(downAt(state, timing))} (period ${seconds(timing.periodMs)} + grace ${seconds(timing.graceMs)})`,
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function seconds(ms: number): string {
  return `${ms / 1000} s`
}
