// ICMP assertions, in Checkly's wire shape, evaluated by the shared rules (./assertions.ts):
//   { source: 'LATENCY', property: 'avg' | 'min' | 'max' | 'stdDev', comparison, target }  (ms)
//   { source: 'PACKET_LOSS', property: '', comparison, target }                               (percent)
// A figure that does not exist (no reply at all, so no latency) is null and fails numeric comparisons.

import { ASSERTION_SOURCES_BY_TYPE, ICMP_LATENCY_PROPERTIES } from '../model/assertions.ts'
import type { Assertion } from '../model/checks.ts'
import {
  AssertionSourceError,
  type AssertionSubject,
  type EvaluatedAssertions,
  evaluateAssertions,
  unsupportedSource,
} from './assertions.ts'
import type { IcmpStats } from './icmp-parse.ts'

export function evaluateIcmpAssertions(
  assertions: readonly Assertion[],
  stats: IcmpStats,
): EvaluatedAssertions {
  return evaluateAssertions(assertions, (assertion) => resolveIcmp(assertion, stats))
}

function resolveIcmp(assertion: Assertion, stats: IcmpStats): AssertionSubject {
  if (assertion.source === 'PACKET_LOSS') return { value: stats.packetLoss }
  if (assertion.source === 'LATENCY') {
    const property = ICMP_LATENCY_PROPERTIES.find((p) => p === assertion.property)
    if (property === undefined) {
      throw new AssertionSourceError(
        `LATENCY property '${assertion.property}' is not supported (allowed: ${ICMP_LATENCY_PROPERTIES.join(', ')})`,
      )
    }
    return { value: stats[property] }
  }
  return unsupportedSource(assertion, ASSERTION_SOURCES_BY_TYPE.ICMP)
}
