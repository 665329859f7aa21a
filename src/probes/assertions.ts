// Evaluation of Checkly-shaped assertions, shared by every probe and by API checks. A probe says how
// to find the actual value for a source/property (its `resolve` function); comparing that value
// with the target is the same everywhere, so a user sees one set of rules.

import { Comparison } from '../model/assertions.ts'
import type { Assertion } from '../model/checks.ts'
import type { AssertionResult } from '../model/result.ts'
import { isPlainObject } from './json-path.ts'

/**
 * The model's comparisons plus the few more Checkly accepts (GREATER_THAN_OR_EQUAL, MATCHES, ...),
 * so a check moved over from Checkly evaluates the same here.
 */
export const EVALUATED_COMPARISONS = [
  ...Object.values(Comparison),
  'LESS_THAN_OR_EQUAL',
  'GREATER_THAN_OR_EQUAL',
  'MATCHES',
] as const
export type EvaluatedComparison = (typeof EVALUATED_COMPARISONS)[number]
const COMPARISONS: readonly string[] = EVALUATED_COMPARISONS

/** What a probe found for one assertion. */
export interface AssertionSubject {
  value: unknown
  /** Header maps: HAS_KEY / NOT_HAS_KEY ignore case. */
  caseInsensitiveKeys?: boolean
  /**
   * Text sources (body, DNS text answer, TCP reply) have no properties: a property given there is
   * a regular expression whose first group (or whole match) is compared, as Checkly's
   * `textAnswer(regex)` does. An explicit `regex` wins.
   */
  propertyIsRegex?: boolean
}

/** Thrown by a probe's resolver for a source or property it cannot answer. */
export class AssertionSourceError extends Error {
  override name = 'AssertionSourceError'
}

export interface EvaluatedAssertions {
  results: AssertionResult[]
  /** One line per assertion that failed, naming what was expected and what was found. */
  failures: string[]
}

/** Longest `actual` kept in a result: bodies can be a MiB, results travel to the hub. */
export const MAX_ACTUAL_LENGTH = 1024

export function evaluateAssertions(
  assertions: readonly Assertion[],
  resolve: (assertion: Assertion) => AssertionSubject,
): EvaluatedAssertions {
  const results: AssertionResult[] = []
  const failures: string[] = []
  for (const assertion of assertions) {
    let result: AssertionResult
    let problem: string | undefined
    try {
      result = evaluateAssertion(assertion, resolve(assertion))
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err)
      result = baseResult(assertion, null, false)
    }
    results.push(result)
    if (!result.passed) failures.push(problem ?? describeFailure(result))
  }
  return { results, failures }
}

/** Applies the optional `regex` extraction, then the comparison. Throws on an unknown comparison or bad regex. */
export function evaluateAssertion(assertion: Assertion, subject: AssertionSubject): AssertionResult {
  const comparison = assertion.comparison
  if (!COMPARISONS.includes(comparison)) {
    throw new AssertionSourceError(
      `assertion comparison '${comparison}' is not supported (allowed: ${COMPARISONS.join(', ')})`,
    )
  }
  const regex = assertion.regex || (subject.propertyIsRegex ? assertion.property : '')
  const value = regex ? extractWithRegex(subject.value, regex) : subject.value
  const target = assertion.target ?? ''
  const passed = compare(
    comparison as EvaluatedComparison,
    value,
    target,
    subject.caseInsensitiveKeys === true,
  )
  return baseResult(assertion, displayValue(value), passed)
}

export function describeFailure(result: AssertionResult): string {
  const where = result.property ? `${result.source} '${result.property}'` : result.source
  const target = result.target === '' ? '' : ` ${JSON.stringify(result.target)}`
  return `${where} ${result.comparison}${target} failed: actual ${JSON.stringify(result.actual)}`
}

function baseResult(
  assertion: Assertion,
  actual: AssertionResult['actual'],
  passed: boolean,
): AssertionResult {
  const result: AssertionResult = {
    source: assertion.source,
    comparison: assertion.comparison,
    target: assertion.target ?? '',
    actual,
    passed,
  }
  if (assertion.property) result.property = assertion.property
  return result
}

function compare(
  comparison: EvaluatedComparison,
  value: unknown,
  target: string,
  caseInsensitiveKeys: boolean,
): boolean {
  switch (comparison) {
    case 'EQUALS':
      return equalsTarget(value, target)
    case 'NOT_EQUALS':
      return !equalsTarget(value, target)
    case 'LESS_THAN':
      return numericCompare(value, target, (a, b) => a < b)
    case 'LESS_THAN_OR_EQUAL':
      return numericCompare(value, target, (a, b) => a <= b)
    case 'GREATER_THAN':
      return numericCompare(value, target, (a, b) => a > b)
    case 'GREATER_THAN_OR_EQUAL':
      return numericCompare(value, target, (a, b) => a >= b)
    case 'CONTAINS':
      return contains(value, target)
    case 'NOT_CONTAINS':
      return !contains(value, target)
    case 'MATCHES':
      return isAbsent(value) ? false : compileRegex(target).test(asText(value))
    case 'IS_EMPTY':
      return isEmpty(value)
    case 'NOT_EMPTY':
      return !isEmpty(value)
    case 'IS_NULL':
      return isAbsent(value)
    case 'NOT_NULL':
      return !isAbsent(value)
    case 'HAS_KEY':
      return hasKey(value, target, caseInsensitiveKeys)
    case 'NOT_HAS_KEY':
      return !hasKey(value, target, caseInsensitiveKeys)
    case 'HAS_VALUE':
      return hasValue(value, target)
    case 'NOT_HAS_VALUE':
      return !hasValue(value, target)
  }
}

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined
}

/** A number when the value is one or is a numeric string ("200", " 1.5 "); otherwise undefined. */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value)
    return Number.isFinite(n) ? n : undefined
  }
  return undefined
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value
  if (isAbsent(value)) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

function equalsTarget(value: unknown, target: string): boolean {
  if (isAbsent(value)) return target === 'null'
  const a = asNumber(value)
  const b = asNumber(target)
  if (a !== undefined && b !== undefined) return a === b
  return asText(value) === target
}

function numericCompare(value: unknown, target: string, op: (a: number, b: number) => boolean): boolean {
  const a = asNumber(value)
  const b = asNumber(target)
  return a !== undefined && b !== undefined && op(a, b)
}

function contains(value: unknown, target: string): boolean {
  if (isAbsent(value)) return false
  if (Array.isArray(value)) return value.some((item) => asText(item).includes(target))
  return asText(value).includes(target)
}

function isEmpty(value: unknown): boolean {
  if (isAbsent(value) || value === '') return true
  if (Array.isArray(value)) return value.length === 0
  if (isPlainObject(value)) return Object.keys(value).length === 0
  return false
}

function hasKey(value: unknown, key: string, caseInsensitive: boolean): boolean {
  if (!isPlainObject(value)) return false
  if (Object.hasOwn(value, key)) return true
  if (!caseInsensitive) return false
  const wanted = key.toLowerCase()
  return Object.keys(value).some((k) => k.toLowerCase() === wanted)
}

function hasValue(value: unknown, target: string): boolean {
  if (Array.isArray(value)) return value.some((item) => equalsTarget(item, target))
  if (isPlainObject(value)) return Object.values(value).some((item) => equalsTarget(item, target))
  return equalsTarget(value, target)
}

/** The first capture group (or the whole match) of `regex` in the value; null when it does not match. */
function extractWithRegex(value: unknown, regex: string): string | null {
  if (isAbsent(value)) return null
  const match = compileRegex(regex).exec(asText(value))
  if (!match) return null
  return match[1] ?? match[0]
}

function compileRegex(source: string): RegExp {
  try {
    return new RegExp(source)
  } catch (err) {
    throw new AssertionSourceError(`invalid regular expression '${source}': ${(err as Error).message}`)
  }
}

function displayValue(value: unknown): AssertionResult['actual'] {
  if (isAbsent(value)) return null
  if (typeof value === 'number' || typeof value === 'boolean') return value
  const text = asText(value)
  return text.length > MAX_ACTUAL_LENGTH ? `${text.slice(0, MAX_ACTUAL_LENGTH)}…` : text
}

/** For probes: an unknown source is a failed assertion with a message naming what is allowed. */
export function unsupportedSource(assertion: Assertion, allowed: readonly string[]): never {
  throw new AssertionSourceError(
    `assertion source '${assertion.source}' is not supported here (allowed: ${allowed.join(', ')})`,
  )
}
