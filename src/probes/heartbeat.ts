// HEARTBEAT probe: run by the scheduler once per period, it sends nothing; it judges the period that
// just ended from the ping state the ingress keeps (src/heartbeat), as healthchecks.io does.

import { downAt, graceStartAt, periodVerdict } from '../heartbeat/status.ts'
import type { HeartbeatStore } from '../heartbeat/store.ts'
import { heartbeatTiming, validateHeartbeatCheck } from '../heartbeat/timing.ts'
import type { HeartbeatCheck } from '../model/checks.ts'
import type { Probe } from '../model/probe.ts'

export interface HeartbeatProbeOptions {
  store: Pick<HeartbeatStore, 'register' | 'markEvaluated'>
  now?: () => number
}

const ERROR_CODES = {
  FAIL_PING: 'HEARTBEAT_FAILED',
  MISSED: 'HEARTBEAT_MISSED',
  RUN_TOO_LONG: 'HEARTBEAT_RUN_TOO_LONG',
} as const

export function createHeartbeatProbe(options: HeartbeatProbeOptions): Probe<HeartbeatCheck> {
  const now = options.now ?? Date.now
  return async (check, ctx) => {
    const problems = validateHeartbeatCheck(check)
    if (problems.length > 0) {
      return {
        status: 'failed',
        error: { code: 'INVALID_CHECK', message: problems.join('; ') },
        assertions: [],
      }
    }
    // Registering here too makes a heartbeat that reached the agent only as a job (from the hub) known
    // to the ingress; for checks registered at start it changes nothing.
    const state = await options.store.register(check)
    const at = now()
    const timing = heartbeatTiming(check)
    const windowStart = state.lastEvaluatedAt ?? at - timing.periodMs
    const verdict = periodVerdict(state, timing, at, windowStart)
    // A test session (`outpost test`) looks without moving the window of the scheduled runs.
    if (!ctx.testSession) await options.store.markEvaluated(check.pingToken, at)
    const details = {
      heartbeat: {
        status: verdict.status,
        lastPingAt: isoOrNull(state.lastPingAt),
        lastSuccessAt: isoOrNull(state.lastSuccessAt),
        lastFailAt: isoOrNull(state.lastFailAt),
        lastExitStatus: state.lastExitStatus,
        lastDurationMs: state.lastDurationMs,
        runningSince: isoOrNull(state.runningSince),
        lateAfter: new Date(graceStartAt(state, timing)).toISOString(),
        downAfter: new Date(downAt(state, timing)).toISOString(),
        pingCount: state.pingCount,
        lastBody: state.recentPings.findLast((p) => p.kind !== 'start' && p.body !== undefined)?.body ?? null,
      },
    }
    if (verdict.passed) return { status: 'passed', assertions: [], details }
    return {
      status: 'failed',
      error: {
        code: ERROR_CODES[verdict.reason ?? 'MISSED'],
        message: verdict.message ?? 'heartbeat failed',
      },
      assertions: [],
      details,
    }
  }
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString()
}
