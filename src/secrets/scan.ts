// The hot loops: one pass over a string's UTF-16 code units or over raw bytes, visiting every
// index.step-th position (see pattern-index.ts). Two copies instead of one generic loop because
// V8 only keeps them fast when each sees a single kind of input.

import { HASH_MULTIPLIER, type IndexEntry, type PatternIndex } from './pattern-index.ts'

/** Called with matches in ascending order of start. */
export type OnMatch = (start: number, length: number) => void

/** Matches found at one grid position: rare, so a plain array sorted on the spot is fine. */
function emitSorted(found: number[], onMatch: OnMatch) {
  const pairs: [number, number][] = []
  for (let i = 0; i < found.length; i += 2) pairs.push([found[i]!, found[i + 1]!])
  pairs.sort((a, b) => a[0] - b[0])
  for (const [start, length] of pairs) onMatch(start, length)
}

function verifyText(
  s: string,
  at: number,
  from: number,
  to: number,
  entries: readonly IndexEntry<string>[],
  onMatch: OnMatch,
) {
  const found: number[] = []
  for (const { pattern, offset } of entries) {
    const start = at - offset
    if (start >= from && start < to && s.startsWith(pattern, start)) found.push(start, pattern.length)
  }
  if (found.length > 0) emitSorted(found, onMatch)
}

/** Reports every pattern occurrence starting in [from, to). */
export function scanText(s: string, from: number, to: number, index: PatternIndex<string>, onMatch: OnMatch) {
  if (index.size === 0) return
  const { filter, shift, buckets, step } = index
  // A match starting at s is seen from the grid position in [s, s + step), whose window must fit.
  const end = Math.min(to + step - 1, s.length - 3)
  if (step === 1) {
    // Every position (a very short secret is in play): roll the key instead of reloading four units.
    if (from >= end) return
    let key = (s.charCodeAt(from) << 16) ^ (s.charCodeAt(from + 1) << 8) ^ s.charCodeAt(from + 2)
    for (let p = from; p < end; p++) {
      key = (key << 8) ^ s.charCodeAt(p + 3)
      const h = Math.imul(key, HASH_MULTIPLIER) >>> shift
      if ((filter[h >>> 5]! & (1 << (h & 31))) === 0) continue
      verifyText(s, p, from, to, buckets.get(h) ?? [], onMatch)
    }
    return
  }
  for (let p = from; p < end; p += step) {
    const key =
      (s.charCodeAt(p) << 24) ^ (s.charCodeAt(p + 1) << 16) ^ (s.charCodeAt(p + 2) << 8) ^ s.charCodeAt(p + 3)
    const h = Math.imul(key, HASH_MULTIPLIER) >>> shift
    if ((filter[h >>> 5]! & (1 << (h & 31))) === 0) continue
    verifyText(s, p, from, to, buckets.get(h) ?? [], onMatch)
  }
}

function bytesStartWith(b: Uint8Array, pattern: Uint8Array, at: number): boolean {
  if (at + pattern.length > b.length) return false
  for (let i = 0; i < pattern.length; i++) if (b[at + i] !== pattern[i]) return false
  return true
}

function verifyBytes(
  b: Uint8Array,
  at: number,
  from: number,
  to: number,
  entries: readonly IndexEntry<Uint8Array>[],
  onMatch: OnMatch,
) {
  const found: number[] = []
  for (const { pattern, offset } of entries) {
    const start = at - offset
    if (start >= from && start < to && bytesStartWith(b, pattern, start)) found.push(start, pattern.length)
  }
  if (found.length > 0) emitSorted(found, onMatch)
}

export function scanBytes(
  b: Uint8Array,
  from: number,
  to: number,
  index: PatternIndex<Uint8Array>,
  onMatch: OnMatch,
) {
  if (index.size === 0) return
  const { filter, shift, buckets, step } = index
  const end = Math.min(to + step - 1, b.length - 3)
  if (step === 1) {
    if (from >= end) return
    let key = (b[from]! << 16) ^ (b[from + 1]! << 8) ^ b[from + 2]!
    for (let p = from; p < end; p++) {
      key = (key << 8) ^ b[p + 3]!
      const h = Math.imul(key, HASH_MULTIPLIER) >>> shift
      if ((filter[h >>> 5]! & (1 << (h & 31))) === 0) continue
      verifyBytes(b, p, from, to, buckets.get(h) ?? [], onMatch)
    }
    return
  }
  for (let p = from; p < end; p += step) {
    const key = (b[p]! << 24) ^ (b[p + 1]! << 16) ^ (b[p + 2]! << 8) ^ b[p + 3]!
    const h = Math.imul(key, HASH_MULTIPLIER) >>> shift
    if ((filter[h >>> 5]! & (1 << (h & 31))) === 0) continue
    verifyBytes(b, p, from, to, buckets.get(h) ?? [], onMatch)
  }
}
