import type { Scrubber } from './scrubber.ts'

/**
 * Scrubs every string (keys included) inside a JSON-like value. Walking the value, rather than
 * scrubbing its serialised text, keeps the structure valid whatever characters a secret holds.
 */
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
