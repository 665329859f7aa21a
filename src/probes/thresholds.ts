// Turning what a probe measured into passed / degraded / failed, the same for URL, DNS and TCP
// monitors (and API checks): an error or a failed assertion fails the run, then the response-time
// limits decide, `maxResponseTime` before `degradedResponseTime`.

import type { ResultError, ResultStatus, Timings } from '../model/result.ts'

export interface StatusInput {
  responseTimeMs?: number
  /** Milliseconds; 0 or less switches the limit off. */
  degradedResponseTime: number
  maxResponseTime: number
  /** Messages of the assertions that failed (see evaluateAssertions). */
  assertionFailures: readonly string[]
  error?: ResultError
}

export interface StatusDecision {
  status: ResultStatus
  error?: ResultError
}

export function decideStatus(input: StatusInput): StatusDecision {
  if (input.error) return { status: 'failed', error: input.error }
  const failures = input.assertionFailures
  if (failures.length > 0) {
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more)` : ''
    return { status: 'failed', error: { code: 'ASSERTION_FAILED', message: `${failures[0]}${more}` } }
  }
  const time = input.responseTimeMs
  if (time !== undefined && input.maxResponseTime > 0 && time > input.maxResponseTime) {
    return {
      status: 'failed',
      error: {
        code: 'MAX_RESPONSE_TIME_EXCEEDED',
        message: `response time ${Math.round(time)} ms is over maxResponseTime ${input.maxResponseTime} ms`,
      },
    }
  }
  if (time !== undefined && input.degradedResponseTime > 0 && time > input.degradedResponseTime) {
    return { status: 'degraded' }
  }
  return { status: 'passed' }
}

/** Milliseconds rounded to microseconds: precise, without float noise in results. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000
}

export function roundTimings(t: Timings): Timings {
  return {
    dns: roundMs(t.dns),
    connect: roundMs(t.connect),
    tls: roundMs(t.tls),
    firstByte: roundMs(t.firstByte),
    download: roundMs(t.download),
  }
}
