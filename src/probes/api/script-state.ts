// The `request` and `response` objects scripts see, and reading back what a script left in them.
// Shapes follow Checkly's scripts: headers and query parameters as plain objects, body as a string.
// What comes back is checked field by field: a script's mistake is a clear failed result.

import { type ApiRequest, HttpMethod, type KeyValuePair } from '../../model/checks.ts'
import type { ApiResponseView } from './resolve-source.ts'

export interface ScriptRequest {
  url: string
  method: string
  headers: Record<string, string>
  queryParameters: Record<string, string>
  body: string
  bodyType: string
}

export interface ScriptResponse {
  statusCode: number
  statusText: string
  headers: Record<string, string | string[]>
  body: string
  /** Milliseconds, read only: assertions use the measured time. */
  responseTime: number
}

export class ScriptStateError extends Error {
  override name = 'ScriptStateError'
}

export function toScriptRequest(request: ApiRequest): ScriptRequest {
  return {
    url: request.url,
    method: request.method,
    headers: toObject(request.headers),
    queryParameters: toObject(request.queryParameters),
    body: request.body,
    bodyType: request.bodyType,
  }
}

/** The check's request with what the setup script changed (url, method, headers, query, body). */
export function fromScriptRequest(value: unknown, base: ApiRequest): ApiRequest {
  if (!isRecord(value))
    throw new ScriptStateError(`request must stay an object, the script left ${typeOf(value)}`)
  const url = value.url
  if (typeof url !== 'string')
    throw new ScriptStateError(`request.url must be a string, the script left ${typeOf(url)}`)
  const method = typeof value.method === 'string' ? value.method.toUpperCase() : value.method
  if (typeof method !== 'string' || !HttpMethod.includes(method as HttpMethod)) {
    throw new ScriptStateError(
      `request.method must be one of ${HttpMethod.join(', ')}, the script left ${JSON.stringify(value.method)}`,
    )
  }
  const body = value.body ?? ''
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return {
    ...base,
    url,
    method: method as HttpMethod,
    headers: toPairs(value.headers, 'request.headers'),
    queryParameters: toPairs(value.queryParameters, 'request.queryParameters'),
    body: text,
  }
}

export function toScriptResponse(response: ApiResponseView, responseTimeMs: number): ScriptResponse {
  return { ...response, headers: { ...response.headers }, responseTime: responseTimeMs }
}

/** The response assertions see, after the teardown script reshaped it. */
export function fromScriptResponse(value: unknown): ApiResponseView {
  if (!isRecord(value))
    throw new ScriptStateError(`response must stay an object, the script left ${typeOf(value)}`)
  const statusCode = Number(value.statusCode)
  if (!Number.isInteger(statusCode)) {
    throw new ScriptStateError(
      `response.statusCode must be an integer, the script left ${JSON.stringify(value.statusCode)}`,
    )
  }
  const headers: Record<string, string | string[]> = {}
  if (value.headers !== undefined && !isRecord(value.headers)) {
    throw new ScriptStateError(`response.headers must be an object, the script left ${typeOf(value.headers)}`)
  }
  for (const [key, v] of Object.entries(value.headers ?? {})) {
    headers[key] = Array.isArray(v) ? v.map(String) : String(v)
  }
  const body = value.body ?? ''
  return {
    statusCode,
    statusText: typeof value.statusText === 'string' ? value.statusText : '',
    headers,
    // A teardown may parse the body and leave an object: assertions see it as JSON text.
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }
}

function toObject(pairs: readonly KeyValuePair[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const { key, value } of pairs) out[key] = value
  return out
}

function toPairs(value: unknown, field: string): KeyValuePair[] {
  if (value === undefined || value === null) return []
  if (!isRecord(value))
    throw new ScriptStateError(`${field} must be an object, the script left ${typeOf(value)}`)
  const pairs: KeyValuePair[] = []
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue
    pairs.push({ key, value: String(v) })
  }
  return pairs
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
