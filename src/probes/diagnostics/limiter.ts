// How many diagnostics run at once. When every slot is busy a new request is skipped rather than
// queued: a host that is down fails every monitor pointing at it, and a queue of traceroutes would
// outlive the runs that asked for them.

export interface SlotLimiter {
  /** A release function when a slot was free, otherwise undefined. */
  tryAcquire(): (() => void) | undefined
  readonly active: number
  readonly max: number
}

export function createSlotLimiter(max: number): SlotLimiter {
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`diagnostics concurrency ${max} is not allowed (an integer of at least 1)`)
  }
  let active = 0
  return {
    tryAcquire() {
      if (active >= max) return undefined
      active++
      let released = false
      return () => {
        if (released) return
        released = true
        active--
      }
    },
    get active() {
      return active
    },
    max,
  }
}
