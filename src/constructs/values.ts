// Small checks of untyped values. Check files may be plain JavaScript, so every option is validated at
// run time whatever its TypeScript type says. Each helper reports through `report` and returns whether
// the value was acceptable, so callers can skip follow-up rules that would only repeat the problem.

import type { Report } from './diagnostics.ts'

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A short rendering of a value for a reason; long strings are cut so a diagnostic stays one line. */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

export function listOf(values: readonly string[]): string {
  return values.join(', ')
}

export function checkString(
  report: Report,
  property: string,
  value: unknown,
  rules: { required?: boolean; maxLength?: number } = {},
): value is string {
  if (value === undefined) {
    if (rules.required) report(property, 'is required')
    return false
  }
  if (typeof value !== 'string') {
    report(property, `must be a string, got ${show(value)}`)
    return false
  }
  if (rules.required && value.trim() === '') {
    report(property, 'must not be empty')
    return false
  }
  if (rules.maxLength !== undefined && value.length > rules.maxLength) {
    report(property, `must be at most ${rules.maxLength} characters, got ${value.length}`)
    return false
  }
  return true
}

export function checkBoolean(report: Report, property: string, value: unknown): boolean {
  if (value === undefined || typeof value === 'boolean') return true
  report(property, `must be true or false, got ${show(value)}`)
  return false
}

/** An optional integer in [min, max]; `unit` makes the reason say e.g. "ms". */
export function checkInteger(
  report: Report,
  property: string,
  value: unknown,
  min: number,
  max: number,
  unit = '',
): boolean {
  if (value === undefined) return true
  const suffix = unit ? ` ${unit}` : ''
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    report(property, `must be an integer from ${min} to ${max}${suffix}, got ${show(value)}`)
    return false
  }
  return true
}

/** An optional value that must be one of `allowed`. */
export function checkOneOf<T extends string>(
  report: Report,
  property: string,
  value: unknown,
  allowed: readonly T[],
): value is T | undefined {
  if (value === undefined) return true
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return true
  report(property, `must be one of ${listOf(allowed)}, got ${show(value)}`)
  return false
}

export function checkStringArray(
  report: Report,
  property: string,
  value: unknown,
  maxItemLength = Number.POSITIVE_INFINITY,
): boolean {
  if (value === undefined) return true
  if (!Array.isArray(value)) {
    report(property, `must be an array of strings, got ${show(value)}`)
    return false
  }
  let ok = true
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item.trim() === '') {
      report(`${property}[${index}]`, `must be a non-empty string, got ${show(item)}`)
      ok = false
    } else if (item.length > maxItemLength) {
      report(`${property}[${index}]`, `must be at most ${maxItemLength} characters, got ${item.length}`)
      ok = false
    }
  })
  return ok
}

/** `[{key, value}]` such as headers. Values are not shown: they may be credentials. */
export function checkKeyValueArray(report: Report, property: string, value: unknown): boolean {
  if (value === undefined) return true
  if (!Array.isArray(value)) {
    report(property, `must be an array of {key, value}, got ${show(value)}`)
    return false
  }
  let ok = true
  value.forEach((item, index) => {
    if (
      !isRecord(item) ||
      typeof item.key !== 'string' ||
      item.key === '' ||
      typeof item.value !== 'string'
    ) {
      report(`${property}[${index}]`, 'must be {key, value} with a non-empty string key and a string value')
      ok = false
    }
  })
  return ok
}

/** Options the construct does not know are almost always typos of ones it does. */
export function checkKnownKeys(
  report: Report,
  prefix: string,
  value: Record<string, unknown>,
  known: readonly string[],
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key))
      report(prefix ? `${prefix}.${key}` : key, `unknown option; known: ${listOf(known)}`)
  }
}

/** Where a check is the target of a network probe: a hostname or an IP literal. */
export function checkHostname(report: Report, property: string, value: unknown): boolean {
  if (!checkString(report, property, value, { required: true, maxLength: 253 })) return false
  const host = value as string
  const ipv6 = host.includes(':')
  const hostnamePattern =
    /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/
  if (ipv6 ? !/^[0-9A-Fa-f:.]+(%[\w.-]+)?$/.test(host) : !hostnamePattern.test(host)) {
    report(property, `must be a hostname or an IP address, got ${show(host)}`)
    return false
  }
  return true
}

/**
 * The `request` every monitor requires: an object with only the keys its kind knows. Returns it for
 * the field checks that follow, or undefined (already reported) when there is nothing to check.
 */
export function checkRequestObject(
  report: Report,
  request: unknown,
  knownKeys: readonly string[],
): Record<string, unknown> | undefined {
  if (!isRecord(request)) {
    report('request', request === undefined ? 'is required' : `must be an object, got ${show(request)}`)
    return undefined
  }
  checkKnownKeys(report, 'request', request, knownKeys)
  return request
}
