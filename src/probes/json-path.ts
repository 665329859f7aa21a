// A small JSONPath subset for assertion properties: `$.a.b`, `$['a b'][0]`, `$.list[*].name`, `a.b`
// (the leading `$` is optional). Filters and recursive descent are out of scope: assertions name one
// place in a document, and a wildcard gathers every match into an array.

export type PathSegment =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }

export class JsonPathError extends Error {
  override name = 'JsonPathError'
}

export function parseJsonPath(path: string): PathSegment[] {
  const segments: PathSegment[] = []
  let i = path.startsWith('$') ? 1 : 0
  const fail = (why: string): never => {
    throw new JsonPathError(`invalid JSON path '${path}' at position ${i}: ${why}`)
  }
  // A path without `$` starts with a bare key ("a.b" means "$.a.b").
  if (i === 0 && path.length > 0 && path[0] !== '[') {
    const end = nextDelimiter(path, 0)
    segments.push(keyOrWildcard(path.slice(0, end)))
    i = end
  }
  while (i < path.length) {
    const c = path[i]
    if (c === '.') {
      const end = nextDelimiter(path, i + 1)
      if (end === i + 1) fail('empty key after "."')
      segments.push(keyOrWildcard(path.slice(i + 1, end)))
      i = end
    } else if (c === '[') {
      const close = findClosingBracket(path, i)
      if (close < 0) fail('"[" without "]"')
      const inner = path.slice(i + 1, close).trim()
      if (inner === '*') segments.push({ kind: 'wildcard' })
      else if (/^-?\d+$/.test(inner)) segments.push({ kind: 'index', index: Number(inner) })
      else if (/^'.*'$|^".*"$/.test(inner)) segments.push({ kind: 'key', key: unquote(inner.slice(1, -1)) })
      else fail(`expected a number, '*' or a quoted key inside [], got '${inner}'`)
      i = close + 1
    } else {
      fail(`unexpected '${c}'`)
    }
  }
  return segments
}

/** The value at `path`, `undefined` when absent; a wildcard yields an array of every match. */
export function queryJsonPath(document: unknown, path: string): unknown {
  const segments = parseJsonPath(path)
  let current: unknown[] = [document]
  let fannedOut = false
  for (const segment of segments) {
    const next: unknown[] = []
    for (const value of current) {
      if (segment.kind === 'wildcard') {
        fannedOut = true
        if (Array.isArray(value)) next.push(...value)
        else if (isPlainObject(value)) next.push(...Object.values(value))
      } else if (segment.kind === 'index') {
        if (!Array.isArray(value)) continue
        const index = segment.index < 0 ? value.length + segment.index : segment.index
        if (index >= 0 && index < value.length) next.push(value[index])
      } else if (isPlainObject(value) && Object.hasOwn(value, segment.key)) {
        next.push(value[segment.key])
      }
    }
    current = next
  }
  return fannedOut ? current : current[0]
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function keyOrWildcard(key: string): PathSegment {
  return key === '*' ? { kind: 'wildcard' } : { kind: 'key', key }
}

function nextDelimiter(path: string, from: number): number {
  let i = from
  while (i < path.length && path[i] !== '.' && path[i] !== '[') i++
  return i
}

function findClosingBracket(path: string, open: number): number {
  const quote = path[open + 1]
  if (quote === "'" || quote === '"') {
    for (let i = open + 2; i < path.length; i++) {
      if (path[i] === '\\') i++
      else if (path[i] === quote) return path[i + 1] === ']' ? i + 1 : -1
    }
    return -1
  }
  return path.indexOf(']', open)
}

function unquote(s: string): string {
  return s.replace(/\\(.)/g, '$1')
}
