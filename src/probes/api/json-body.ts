// JSON_BODY assertions: a JSONPath (Checkly's syntax, through jsonpath-plus, filters included)
// over the parsed body. One match is the value itself; several are an array; none is undefined.

import { JSONPath } from 'jsonpath-plus'
import { AssertionSourceError } from '../assertions.ts'

export function queryJsonBody(document: unknown, path: string): unknown {
  if (path.trim() === '' || path.trim() === '$') return document
  let matches: unknown[]
  try {
    // `json` must be an object or array for jsonpath-plus; a scalar body has no properties.
    if (typeof document !== 'object' || document === null) return undefined
    matches = JSONPath({ path, json: document, wrap: true, eval: 'safe' }) as unknown[]
  } catch (err) {
    throw new AssertionSourceError(`invalid JSON path '${path}': ${(err as Error).message}`)
  }
  if (!Array.isArray(matches) || matches.length === 0) return undefined
  return matches.length === 1 ? matches[0] : matches
}
