// Where each API assertion source finds its actual value: the response as the teardown script left
// it (status, headers, body) and the measured response time.

import type { Assertion } from '../../model/checks.ts'
import { AssertionSourceError, type AssertionSubject, unsupportedSource } from '../assertions.ts'
import { queryJsonBody } from './json-body.ts'

export const API_ASSERTION_SOURCES = [
  'STATUS_CODE',
  'HEADERS',
  'TEXT_BODY',
  'JSON_BODY',
  'RESPONSE_TIME',
] as const

export interface ApiResponseView {
  statusCode: number
  statusText: string
  headers: Record<string, string | string[]>
  body: string
}

/** Builds a resolver that parses the body as JSON at most once, and only when asked. */
export function apiSourceResolver(
  response: ApiResponseView,
  responseTimeMs: number,
): (assertion: Assertion) => AssertionSubject {
  let parsed: { value: unknown } | { error: string } | undefined
  const document = (): unknown => {
    if (!parsed) {
      try {
        parsed = { value: JSON.parse(response.body) as unknown }
      } catch (err) {
        parsed = { error: (err as Error).message }
      }
    }
    if ('error' in parsed) throw new AssertionSourceError(`response body is not JSON: ${parsed.error}`)
    return parsed.value
  }
  return (assertion) => {
    switch (assertion.source) {
      case 'STATUS_CODE':
        return { value: response.statusCode }
      case 'RESPONSE_TIME':
        return { value: responseTimeMs }
      case 'HEADERS':
        if (assertion.property) return { value: headerOf(response.headers, assertion.property) ?? null }
        return { value: response.headers, caseInsensitiveKeys: true }
      case 'TEXT_BODY':
        return { value: response.body, propertyIsRegex: true }
      case 'JSON_BODY':
        return { value: queryJsonBody(document(), assertion.property ?? '') }
      default:
        return unsupportedSource(assertion, API_ASSERTION_SOURCES)
    }
  }
}

/** Header names ignore case (a teardown script may have written them in any case). */
function headerOf(headers: Record<string, string | string[]>, name: string): string | undefined {
  const wanted = name.toLowerCase()
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value.join(', ') : value
  }
  return undefined
}
