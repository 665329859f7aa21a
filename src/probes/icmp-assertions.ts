// ICMP assertions, in Checkly's wire shape:
//   { source: 'LATENCY', property: 'avg' | 'min' | 'max' | 'stdDev', comparison, target }  (ms)
//   { source: 'PACKET_LOSS', property: '', comparison, target }                               (percent)
// Comparisons: EQUALS, NOT_EQUALS, LESS_THAN, GREATER_THAN. Kept local to ICMP because these are the
// only sources it has; a missing figure (no reply at all) fails the assertion.

import type { Assertion } from '../model/checks.ts'
import type { AssertionResult } from '../model/result.ts'
import type { IcmpStats } from './icmp-parse.ts'

export const IcmpAssertionSource = { LATENCY: 'LATENCY', PACKET_LOSS: 'PACKET_LOSS' } as const
export const LATENCY_PROPERTIES = ['avg', 'min', 'max', 'stdDev'] as const
export const NUMERIC_COMPARISONS = ['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'GREATER_THAN'] as const

export interface IcmpAssertionEvaluation {
  results: AssertionResult[]
  /** Assertions that could not be evaluated as written, each naming the field, value and what is allowed. */
  problems: string[]
}

export function evaluateIcmpAssertions(assertions: Assertion[], stats: IcmpStats): IcmpAssertionEvaluation {
  const results: AssertionResult[] = []
  const problems: string[] = []
  assertions.forEach((assertion, index) => {
    const problem = describeProblem(assertion, index)
    const actual = problem === null ? actualValue(assertion, stats) : null
    const target = Number(assertion.target)
    const passed = problem === null && actual !== null && compare(assertion.comparison, actual, target)
    if (problem !== null) problems.push(problem)
    results.push({
      source: assertion.source,
      ...(assertion.property ? { property: assertion.property } : {}),
      comparison: assertion.comparison,
      target: assertion.target,
      actual,
      passed,
    })
  })
  return { results, problems }
}

function describeProblem(assertion: Assertion, index: number): string | null {
  const where = `assertions[${index}]`
  if (assertion.source !== 'LATENCY' && assertion.source !== 'PACKET_LOSS') {
    return `${where}.source is "${assertion.source}"; ICMP allows LATENCY or PACKET_LOSS`
  }
  if (
    assertion.source === 'LATENCY' &&
    !(LATENCY_PROPERTIES as readonly string[]).includes(assertion.property)
  ) {
    return `${where}.property is "${assertion.property}"; LATENCY allows ${LATENCY_PROPERTIES.join(', ')}`
  }
  if (!(NUMERIC_COMPARISONS as readonly string[]).includes(assertion.comparison)) {
    return `${where}.comparison is "${assertion.comparison}"; allowed: ${NUMERIC_COMPARISONS.join(', ')}`
  }
  if (assertion.target.trim() === '' || !Number.isFinite(Number(assertion.target))) {
    return `${where}.target is "${assertion.target}"; it must be a number`
  }
  return null
}

function actualValue(assertion: Assertion, stats: IcmpStats): number | null {
  if (assertion.source === 'PACKET_LOSS') return stats.packetLoss
  if (assertion.property === 'avg') return stats.avg
  if (assertion.property === 'min') return stats.min
  if (assertion.property === 'max') return stats.max
  if (assertion.property === 'stdDev') return stats.stdDev
  return null
}

function compare(comparison: string, actual: number, target: number): boolean {
  if (comparison === 'EQUALS') return actual === target
  if (comparison === 'NOT_EQUALS') return actual !== target
  if (comparison === 'LESS_THAN') return actual < target
  if (comparison === 'GREATER_THAN') return actual > target
  return false
}
