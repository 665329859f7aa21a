// Matches of different secrets (or of two forms of one) can overlap. Replacing the union of all
// matched ranges, rather than each match in turn, leaves no tail of a longer overlapping match
// behind, and gives the same output however the input was split into chunks.

export interface IntervalMerger {
  /** Adds a match; starts must arrive in ascending order. */
  readonly add: (start: number, length: number) => void
  /** Closes the open range if no match starting at `position` or later could still extend it. */
  closeBefore(position: number): void
  close(): void
  /** Start of the range still open, if any. */
  openStart(): number | undefined
  /** Moves the open range left by `offset`, when the buffer it refers to drops a prefix. */
  rebase(offset: number): void
}

/**
 * A range stops growing at this length, so a stream never holds more than this back however long
 * a run of overlapping matches ("AAAA" in the base64 of a block of zeros) goes on. The rest of the
 * run gets its own marker; every matched unit is still covered.
 */
export const MAX_RANGE_LENGTH = 64 * 1024

export function createIntervalMerger(onRange: (start: number, end: number) => void): IntervalMerger {
  let open = false
  let start = 0
  let end = 0
  const close = () => {
    if (!open) return
    open = false
    onRange(start, end)
  }
  return {
    add: (matchStart, length) => {
      // A match touching the open range joins it: one marker for adjacent secrets tells less.
      if (open && matchStart <= end) {
        if (end - start < MAX_RANGE_LENGTH) {
          end = Math.max(end, matchStart + length)
          return
        }
        const covered = end
        close()
        if (matchStart + length <= covered) return
        open = true
        start = covered
        end = matchStart + length
        return
      }
      close()
      open = true
      start = matchStart
      end = matchStart + length
    },
    closeBefore: (position) => {
      if (open && position > end) close()
    },
    close,
    openStart: () => (open ? start : undefined),
    rebase: (offset) => {
      start -= offset
      end -= offset
    },
  }
}
