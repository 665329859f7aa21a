// From an API check's request (after variables and the setup script) to what goes on the wire:
// query parameters appended to the URL, the body shaped by its type, a content type and basic
// auth added unless the check set those headers itself (an explicit header always wins).

import { type ApiRequest, HttpMethod, type KeyValuePair } from '../../model/checks.ts'
import { parseHttpUrl, RequestInputError } from '../http/request.ts'

export interface WireRequest {
  url: URL
  method: HttpMethod
  headers: KeyValuePair[]
  body?: string
}

const CONTENT_TYPES: Readonly<Record<ApiRequest['bodyType'], string | undefined>> = {
  JSON: 'application/json',
  FORM: 'application/x-www-form-urlencoded',
  GRAPHQL: 'application/json',
  RAW: undefined,
  NONE: undefined,
}

export function toWireRequest(request: ApiRequest): WireRequest {
  if (!HttpMethod.includes(request.method)) {
    throw new RequestInputError(
      `request.method '${request.method}' is not allowed (allowed: ${HttpMethod.join(', ')})`,
    )
  }
  const url = parseHttpUrl(request.url)
  for (const { key, value } of request.queryParameters) url.searchParams.append(key, value)
  const headers = request.headers.map(({ key, value }) => ({ key, value }))
  const has = (name: string) => headers.some((h) => h.key.toLowerCase() === name)
  const body = bodyFor(request)
  const contentType = CONTENT_TYPES[request.bodyType]
  if (body !== undefined && contentType && !has('content-type')) {
    headers.push({ key: 'content-type', value: contentType })
  }
  if (request.basicAuth && !has('authorization')) {
    const { username, password } = request.basicAuth
    const token = Buffer.from(`${username}:${password}`, 'utf8').toString('base64')
    headers.push({ key: 'authorization', value: `Basic ${token}` })
  }
  const wire: WireRequest = { url, method: request.method, headers }
  if (body !== undefined) wire.body = body
  return wire
}

/** NONE sends no body whatever `body` holds; the other types send it (GRAPHQL wrapped, see below). */
function bodyFor(request: ApiRequest): string | undefined {
  if (request.bodyType === 'NONE') return undefined
  if (request.bodyType === 'GRAPHQL') return graphqlBody(request.body)
  return request.body
}

/**
 * GraphQL over HTTP: a JSON object {query, variables?, operationName?}. A body that already is such
 * an object is sent as written; any other body is the query text itself.
 */
export function graphqlBody(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body)
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as { query?: unknown }).query === 'string'
    )
      return body
  } catch {
    // Not JSON: the query text.
  }
  return JSON.stringify({ query: body })
}
