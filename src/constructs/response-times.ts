// degradedResponseTime / maxResponseTime: shared by URL, TCP, DNS and API checks, each with its own
// defaults and cap (Checkly's).

import type { Report } from './diagnostics.ts'
import { checkInteger } from './values.ts'

export interface ResponseTimeLimits {
  degradedDefault: number
  maxDefault: number
  /** Neither may exceed this (ms). */
  cap: number
}

export function validateResponseTimes(
  report: Report,
  props: Record<string, unknown>,
  limits: ResponseTimeLimits,
): void {
  const degradedOk = checkInteger(
    report,
    'degradedResponseTime',
    props.degradedResponseTime,
    0,
    limits.cap,
    'ms',
  )
  const maxOk = checkInteger(report, 'maxResponseTime', props.maxResponseTime, 0, limits.cap, 'ms')
  if (!degradedOk || !maxOk) return
  const { degraded, max } = resolveResponseTimes(props, limits)
  if (degraded > max) {
    report('degradedResponseTime', `must not exceed maxResponseTime (${max} ms), got ${degraded} ms`)
  }
}

export function resolveResponseTimes(
  props: { degradedResponseTime?: unknown; maxResponseTime?: unknown },
  limits: ResponseTimeLimits,
): { degraded: number; max: number } {
  const degraded =
    typeof props.degradedResponseTime === 'number' ? props.degradedResponseTime : limits.degradedDefault
  const max = typeof props.maxResponseTime === 'number' ? props.maxResponseTime : limits.maxDefault
  return { degraded, max }
}
