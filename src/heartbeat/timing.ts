// A heartbeat's period and grace in milliseconds.

import type { HeartbeatCheck, TimeUnit } from '../model/checks.ts'

export const TIME_UNIT_MS: Readonly<Record<TimeUnit, number>> = {
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
}

export interface HeartbeatTiming {
  periodMs: number
  graceMs: number
}

export function toMs(value: number, unit: TimeUnit): number {
  return value * TIME_UNIT_MS[unit]
}

export function heartbeatTiming(
  check: Pick<HeartbeatCheck, 'period' | 'periodUnit' | 'grace' | 'graceUnit'>,
): HeartbeatTiming {
  return { periodMs: toMs(check.period, check.periodUnit), graceMs: toMs(check.grace, check.graceUnit) }
}

/** Problems with a heartbeat's own fields, each naming the field, the value and what is allowed. */
export function validateHeartbeatCheck(check: HeartbeatCheck): string[] {
  const problems: string[] = []
  const units = Object.keys(TIME_UNIT_MS)
  if (!Number.isFinite(check.period) || check.period <= 0) {
    problems.push(`period is ${check.period}; allowed: a number greater than 0`)
  }
  if (!Number.isFinite(check.grace) || check.grace < 0) {
    problems.push(`grace is ${check.grace}; allowed: a number of 0 or more`)
  }
  if (!units.includes(check.periodUnit))
    problems.push(`periodUnit is "${check.periodUnit}"; allowed: ${units.join(', ')}`)
  if (!units.includes(check.graceUnit))
    problems.push(`graceUnit is "${check.graceUnit}"; allowed: ${units.join(', ')}`)
  if (typeof check.pingToken !== 'string' || !/^[A-Za-z0-9._~-]{1,128}$/.test(check.pingToken)) {
    problems.push(`pingToken is "${check.pingToken}"; allowed: 1 to 128 of A-Z a-z 0-9 . _ ~ -`)
  }
  return problems
}
