// A q-gram index over many patterns, for one pass over text or bytes that looks at only a few
// positions. With m the shortest pattern's length, every occurrence of any pattern covers the
// four-unit windows at its offsets 0 .. m-4, and exactly one of those lies on a grid of every
// (m-3)th position. So the scan hashes the window at each grid position only, tests one bit, and
// in the rare case the bit is set compares the patterns that have that window at some offset.

export const WINDOW_UNITS = 4
export const HASH_MULTIPLIER = 0x9e3779b1
const MIN_TABLE_BITS = 12
const MAX_TABLE_BITS = 22

/** A pattern whose window at `offset` hashes to the bucket holding this entry. */
export interface IndexEntry<P> {
  readonly pattern: P
  readonly offset: number
}

export interface PatternIndex<P> {
  /** Bit h set when some pattern's window hashes to h. */
  readonly filter: Uint32Array
  /** 32 minus the table's bit count: the hash is the top bits of the multiplied window. */
  readonly shift: number
  readonly buckets: ReadonlyMap<number, readonly IndexEntry<P>[]>
  /** Distance between scanned positions: shortest pattern length minus three. */
  readonly step: number
  readonly maxLength: number
  readonly size: number
}

/**
 * The key of the four units at `at`: the top unit's high bits fall off the 32-bit word, which is
 * fine for a hash. Scanners compute the same expression inline.
 */
export function windowKey(unitAt: (i: number) => number, at: number): number {
  return (unitAt(at) << 24) ^ (unitAt(at + 1) << 16) ^ (unitAt(at + 2) << 8) ^ unitAt(at + 3)
}

function tableBits(entryCount: number): number {
  // About 128 slots per entry keeps false hits rare; a small table stays in the fastest cache.
  const wanted = Math.ceil(Math.log2(Math.max(1, entryCount) * 128))
  return Math.min(MAX_TABLE_BITS, Math.max(MIN_TABLE_BITS, wanted))
}

export function buildPatternIndex<P extends { readonly length: number }>(
  patterns: readonly P[],
  unitAt: (pattern: P, i: number) => number,
): PatternIndex<P> {
  let minLength = Number.POSITIVE_INFINITY
  let maxLength = 0
  for (const pattern of patterns) {
    if (pattern.length < WINDOW_UNITS) throw new Error(`pattern shorter than ${WINDOW_UNITS} units`)
    minLength = Math.min(minLength, pattern.length)
    maxLength = Math.max(maxLength, pattern.length)
  }
  const step = patterns.length === 0 ? 1 : minLength - WINDOW_UNITS + 1
  const bits = tableBits(patterns.length * step)
  const shift = 32 - bits
  const filter = new Uint32Array((1 << bits) >>> 5)
  const buckets = new Map<number, IndexEntry<P>[]>()
  for (const pattern of patterns) {
    for (let offset = 0; offset < step; offset++) {
      const h =
        Math.imul(
          windowKey((i) => unitAt(pattern, i), offset),
          HASH_MULTIPLIER,
        ) >>> shift
      filter[h >>> 5]! |= 1 << (h & 31)
      const bucket = buckets.get(h)
      if (bucket) bucket.push({ pattern, offset })
      else buckets.set(h, [{ pattern, offset }])
    }
  }
  return { filter, shift, buckets, step, maxLength, size: patterns.length }
}
