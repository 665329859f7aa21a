import type { Scrubber } from '../secrets/scrubber.ts'

/** Scrubs every string (keys included) inside a JSON-like value, keeping its structure valid. */
export function scrubDeep<T>(value: T, scrubber: Scrubber): T {
  return walk(value, scrubber) as T
}

function walk(value: unknown, scrubber: Scrubber): unknown {
  if (typeof value === 'string') return scrubber.text(value)
  if (Array.isArray(value)) return value.map((v) => walk(v, scrubber))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[scrubber.text(k)] = walk(v, scrubber)
    return out
  }
  return value
}
