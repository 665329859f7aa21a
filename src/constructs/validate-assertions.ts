// Assertions may be written by hand in JavaScript; these rules keep what reaches a probe evaluable.

import {
  ASSERTION_SOURCES_BY_TYPE,
  Comparison,
  ICMP_LATENCY_PROPERTIES,
  TARGETLESS_COMPARISONS,
} from '../model/assertions.ts'
import type { Report } from './diagnostics.ts'
import { checkKnownKeys, checkOneOf, isRecord, listOf, show } from './values.ts'

const COMPARISONS: readonly Comparison[] = Object.values(Comparison)
const NUMERIC_COMPARISONS: readonly Comparison[] = ['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'GREATER_THAN']
const NUMERIC_SOURCES: readonly string[] = ['STATUS_CODE', 'RESPONSE_TIME', 'LATENCY', 'PACKET_LOSS']

export function validateAssertions(
  report: Report,
  property: string,
  value: unknown,
  type: keyof typeof ASSERTION_SOURCES_BY_TYPE,
): void {
  if (value === undefined) return
  if (!Array.isArray(value)) {
    report(property, `must be an array of assertions, got ${show(value)}`)
    return
  }
  const sources: readonly string[] = ASSERTION_SOURCES_BY_TYPE[type]
  value.forEach((item, index) => {
    const at = `${property}[${index}]`
    if (!isRecord(item)) {
      report(at, `must be an assertion made with a ${type} assertion builder, got ${show(item)}`)
      return
    }
    checkKnownKeys(report, at, item, ['source', 'property', 'comparison', 'target', 'regex'])
    if (typeof item.source !== 'string' || !sources.includes(item.source)) {
      report(`${at}.source`, `must be one of ${listOf(sources)} for ${type} checks, got ${show(item.source)}`)
    }
    if (item.comparison === undefined)
      report(`${at}.comparison`, `is required; one of ${listOf(COMPARISONS)}`)
    else if (checkOneOf(report, `${at}.comparison`, item.comparison, COMPARISONS)) {
      const comparison = item.comparison as Comparison
      if (typeof item.source === 'string' && NUMERIC_SOURCES.includes(item.source)) {
        if (!NUMERIC_COMPARISONS.includes(comparison)) {
          report(`${at}.comparison`, `${item.source} is a number: use one of ${listOf(NUMERIC_COMPARISONS)}`)
        } else if (
          typeof item.target !== 'string' ||
          !Number.isFinite(Number(item.target)) ||
          item.target === ''
        ) {
          report(`${at}.target`, `${item.source} compares with a number, got ${show(item.target)}`)
        }
      }
      if (
        !TARGETLESS_COMPARISONS.includes(comparison) &&
        (typeof item.target !== 'string' || item.target === '')
      ) {
        if (!(typeof item.source === 'string' && NUMERIC_SOURCES.includes(item.source))) {
          report(`${at}.target`, `${comparison} needs a target, got ${show(item.target)}`)
        }
      }
    }
    if (item.property !== undefined && typeof item.property !== 'string') {
      report(`${at}.property`, `must be a string, got ${show(item.property)}`)
    }
    if (item.source === 'LATENCY') {
      checkOneOf(
        report,
        `${at}.property`,
        item.property === '' ? undefined : item.property,
        ICMP_LATENCY_PROPERTIES,
      )
      if (item.property === undefined || item.property === '') {
        report(`${at}.property`, `LATENCY needs one of ${listOf(ICMP_LATENCY_PROPERTIES)}`)
      }
    }
    if (item.regex !== undefined && item.regex !== null) {
      if (typeof item.regex !== 'string') report(`${at}.regex`, `must be a string, got ${show(item.regex)}`)
      else {
        try {
          new RegExp(item.regex)
        } catch (error) {
          report(`${at}.regex`, `is not a valid regular expression: ${(error as Error).message}`)
        }
      }
    }
  })
}
