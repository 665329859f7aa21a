// Which code runs which check type. Probes and the Playwright runner register here; the uptime
// flavor has no Playwright executors at all, and says so plainly when handed such a job.

import type { CheckDefinition, CheckType } from '../model/checks.ts'
import { isUptimeCheckType } from '../model/checks.ts'
import type { ProbeContext, ProbeOutcome } from '../model/probe.ts'

export type Executor = (check: CheckDefinition, ctx: ProbeContext) => Promise<ProbeOutcome>
export type ExecutorTable = Partial<Record<CheckType, Executor>>

export const UPTIME_FLAVOR_REFUSAL =
  'the uptime agent runs URL, DNS, TCP, ICMP and heartbeat monitors only; run this check on the full agent image'

export function failedOutcome(code: string, message: string): ProbeOutcome {
  return { status: 'failed', error: { code, message }, assertions: [] }
}

/** Picks the executor for a check, or explains why there is none. */
export function executorFor(table: ExecutorTable, flavor: 'full' | 'uptime', type: CheckType): Executor {
  if (flavor === 'uptime' && !isUptimeCheckType(type)) {
    return async () =>
      failedOutcome('UNSUPPORTED_BY_FLAVOR', `${type} check refused: ${UPTIME_FLAVOR_REFUSAL}`)
  }
  const executor = table[type]
  if (executor) return executor
  return async () => failedOutcome('UNSUPPORTED_CHECK_TYPE', `this agent has no runner for ${type} checks`)
}

/** The check types this agent can run: what it advertises to the hub. */
export function supportedTypes(table: ExecutorTable, flavor: 'full' | 'uptime'): CheckType[] {
  return (Object.keys(table) as CheckType[]).filter((t) => flavor === 'full' || isUptimeCheckType(t))
}
