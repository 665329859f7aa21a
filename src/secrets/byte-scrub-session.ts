// Scrubs bytes that arrive in pieces. It scans only positions that have a whole longest pattern
// after them, holds back the rest (and any range a later match could still extend), and so emits
// exactly what scrubbing the concatenated input at once would, whatever the chunk boundaries.

import { createIntervalMerger } from './interval-merger.ts'
import type { PatternIndex } from './pattern-index.ts'
import { scanBytes } from './scan.ts'

export interface ByteScrubSession {
  /** Takes the next chunk; returns the scrubbed bytes that are now final (possibly none). */
  push(chunk: Uint8Array): Uint8Array
  /** Ends the input, optionally with a last chunk; returns everything still held back, scrubbed. */
  finish(lastChunk?: Uint8Array): Uint8Array
}

const EMPTY = new Uint8Array(0)

function concat(pieces: readonly Uint8Array[]): Uint8Array {
  let length = 0
  for (const piece of pieces) length += piece.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const piece of pieces) {
    out.set(piece, offset)
    offset += piece.length
  }
  return out
}

export function createByteScrubSession(
  index: PatternIndex<Uint8Array>,
  marker: Uint8Array,
): ByteScrubSession {
  // Not yet emitted input; positions below are relative to its start.
  let pending: Uint8Array = EMPTY
  let scanned = 0
  let emitted = 0
  let pieces: Uint8Array[] = []
  const merger = createIntervalMerger((start, end) => {
    pieces.push(pending.subarray(emitted, start), marker)
    emitted = end
  })

  const advance = (final: boolean): Uint8Array => {
    const limit = final ? pending.length : pending.length - index.maxLength + 1
    if (limit > scanned) {
      scanBytes(pending, scanned, limit, index, merger.add)
      scanned = limit
    }
    if (final) merger.close()
    else merger.closeBefore(scanned)
    const boundary = final ? pending.length : Math.min(scanned, merger.openStart() ?? scanned)
    if (boundary > emitted) {
      pieces.push(pending.subarray(emitted, boundary))
      emitted = boundary
    }
    const out = concat(pieces)
    pieces = []
    pending = pending.subarray(emitted)
    scanned -= emitted
    merger.rebase(emitted)
    emitted = 0
    return out
  }

  const append = (chunk: Uint8Array) => {
    if (chunk.length > 0) pending = pending.length === 0 ? chunk : concat([pending, chunk])
  }
  return {
    push: (chunk) => {
      append(chunk)
      return advance(false)
    },
    finish: (lastChunk = EMPTY) => {
      append(lastChunk)
      return advance(true)
    },
  }
}
