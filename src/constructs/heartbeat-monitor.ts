// HeartbeatMonitor: the job pings us (healthchecks.io style). Late by more than period + grace = down.

import { createHash } from 'node:crypto'
import type { HeartbeatCheck, TimeUnit } from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import type { Report } from './diagnostics.ts'
import type { Frequency } from './frequency.ts'
import { checkOneOf, checkString, show } from './values.ts'

export interface HeartbeatMonitorProps extends Omit<CheckProps, 'frequency'> {
  /** Expected time between pings: 30 seconds to 365 days. */
  period: number
  periodUnit: TimeUnit
  /** Extra time allowed after the period before the check is down: up to 365 days (default 0). */
  grace?: number
  /** Required when grace is given. */
  graceUnit?: TimeUnit
  /** The secret part of the ping URL (8..128 of A-Z a-z 0-9 _ -). Default: derived from the logicalId. */
  pingToken?: string
}

export const TIME_UNIT_SECONDS: Readonly<Record<TimeUnit, number>> = {
  seconds: 1,
  minutes: 60,
  hours: 3600,
  days: 86400,
}
const TIME_UNITS = Object.keys(TIME_UNIT_SECONDS) as TimeUnit[]
export const HEARTBEAT_LIMITS = { minPeriodSeconds: 30, maxSeconds: 365 * 86400 } as const
const PING_TOKEN_PATTERN = /^[A-Za-z0-9_-]{8,128}$/

/**
 * Stable across loads and machines, so a pinging job keeps working when checks are reloaded or moved
 * to another agent. It is predictable by whoever knows the logicalId: set pingToken for a secret one.
 */
export function derivePingToken(logicalId: string): string {
  return createHash('sha256').update(`outpost-heartbeat:${logicalId}`).digest('hex').slice(0, 32)
}

export class HeartbeatMonitor extends Check<HeartbeatMonitorProps> {
  get type() {
    return 'HEARTBEAT' as const
  }
  protected get kind() {
    return 'heartbeat monitors'
  }
  protected get ownProps() {
    return ['period', 'periodUnit', 'grace', 'graceUnit', 'pingToken']
  }
  protected get frequencies(): readonly Frequency[] {
    return []
  }

  protected validateOwn(report: Report, props: Record<string, unknown>): void {
    const period = durationSeconds(report, 'period', props.period, props.periodUnit, true)
    if (
      period !== undefined &&
      (period < HEARTBEAT_LIMITS.minPeriodSeconds || period > HEARTBEAT_LIMITS.maxSeconds)
    ) {
      report('period', `must be from 30 seconds to 365 days, got ${props.period} ${props.periodUnit}`)
    }
    const grace = durationSeconds(report, 'grace', props.grace, props.graceUnit, false)
    if (grace !== undefined && grace > HEARTBEAT_LIMITS.maxSeconds) {
      report('grace', `must be at most 365 days, got ${props.grace} ${props.graceUnit}`)
    }
    if (
      checkString(report, 'pingToken', props.pingToken) &&
      !PING_TOKEN_PATTERN.test(props.pingToken as string)
    ) {
      report('pingToken', 'must be 8 to 128 letters, digits, _ or -')
    }
  }

  toDefinition(context: CheckContext): HeartbeatCheck {
    const p = this.props
    return {
      ...this.commonDefinition(context),
      frequencySeconds: p.period * TIME_UNIT_SECONDS[p.periodUnit],
      type: 'HEARTBEAT',
      period: p.period,
      periodUnit: p.periodUnit,
      grace: p.grace ?? 0,
      graceUnit: p.graceUnit ?? 'seconds',
      pingToken: p.pingToken ?? derivePingToken(this.logicalId),
    }
  }
}

/** A number with its unit in seconds, or undefined when absent or invalid (after reporting why). */
function durationSeconds(
  report: Report,
  property: 'period' | 'grace',
  amount: unknown,
  unit: unknown,
  required: boolean,
): number | undefined {
  const unitProperty = `${property}Unit`
  if (amount === undefined) {
    if (required) report(property, 'is required')
    if (unit !== undefined) checkOneOf(report, unitProperty, unit, TIME_UNITS)
    return undefined
  }
  let ok = true
  if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 0) {
    report(property, `must be a whole number, got ${show(amount)}`)
    ok = false
  }
  if (unit === undefined) {
    report(unitProperty, `is required with ${property}; one of ${TIME_UNITS.join(', ')}`)
    return undefined
  }
  if (!checkOneOf(report, unitProperty, unit, TIME_UNITS) || !ok) return undefined
  return (amount as number) * TIME_UNIT_SECONDS[unit as TimeUnit]
}
