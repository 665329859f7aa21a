// One stop signal per probe run: fired by the job's signal (job timeout, shutdown) or by the probe's
// own limit, whichever comes first. Probes at thousands of runs a second pay for every EventTarget
// and AbortController they create, so the run's signal is a small object of its own with the
// shape of AbortSignal's abort API (an AbortSignal fits wherever a StopSignal is asked for).

export type StopListener = () => void

/** The part of AbortSignal the probes use. */
export interface StopSignal {
  readonly aborted: boolean
  readonly reason: unknown
  addEventListener(type: 'abort', listener: StopListener, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: StopListener): void
}

export interface RunDeadline {
  readonly signal: StopSignal
  /** Milliseconds since the run started (performance.now based). */
  elapsed(): number
  /** True when the probe's own limit fired rather than the job's signal. */
  readonly timedOut: boolean
  /** Takes the run off its clock and its parent signal; call once the run is over. */
  dispose(): void
}

/** Starts run deadlines; one clock per probe instance, shared by all its runs. */
export interface DeadlineClock {
  start(parent: AbortSignal, limitMs: number | undefined): RunDeadline
}

/**
 * Every run needs a timer for its limit, and a Node timer per run (a Timeout object, its async
 * hooks, arming and disarming libuv's timer when the run is alone) costs a probe as much as the rest
 * of its JavaScript. Runs with the same limit expire in the order they started, so the clock keeps
 * one queue per limit and one Node timer for the earliest of all: starting and ending a run only
 * link and unlink it. The timer is unref'd: a run in flight holds its own socket or request, which
 * keeps the process alive; a clock with nothing left to time must not.
 */
export function createDeadlineClock(): DeadlineClock {
  return new Clock()
}

/** A queue of the runs that share one limit, oldest first (their expiry is in start order). */
interface Lane {
  head: Deadline | undefined
  tail: Deadline | undefined
}

/** The longest delay setTimeout takes as given (a signed 32-bit count of milliseconds). */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1

/** Node can fire a timer up to a millisecond early by performance.now() (it counts whole ms). */
const EARLY_FIRE_TOLERANCE_MS = 1

/**
 * How long a run goes before it listens to its job's signal itself. Adding and removing a listener
 * on an AbortSignal (an EventTarget) costs a loopback DNS query a twentieth of its time, and most
 * runs are over in a millisecond; a job's signal (its timeout, the agent's shutdown) can wait this
 * long to be heard by a run that just started.
 */
export const PARENT_WATCH_MS = 20

class Clock implements DeadlineClock {
  readonly #lanes = new Map<number, Lane>()
  #timer: NodeJS.Timeout | undefined
  #armedFor = Number.POSITIVE_INFINITY
  // Runs started since the last watch, which do not listen to their job's signal yet.
  #young: Deadline[] = []
  #watcher: NodeJS.Timeout | undefined

  start(parent: AbortSignal, limitMs: number | undefined): RunDeadline {
    const deadline = new Deadline(parent, this)
    if (deadline.aborted) return deadline
    if (limitMs !== undefined && limitMs > 0) this.#enqueue(deadline, limitMs)
    this.#young.push(deadline)
    if (this.#watcher === undefined) {
      this.#watcher = setTimeout(() => this.#watchParents(), PARENT_WATCH_MS)
      this.#watcher.unref()
    }
    return deadline
  }

  /** Runs still going after a watch period listen to their job's signal from now on. */
  #watchParents(): void {
    this.#watcher = undefined
    const young = this.#young
    this.#young = []
    for (const deadline of young) deadline.listenToParent()
  }

  #enqueue(deadline: Deadline, limitMs: number): void {
    deadline.limitMs = limitMs
    deadline.expiresAt = deadline.startedAt + limitMs
    let lane = this.#lanes.get(limitMs)
    if (lane === undefined) {
      lane = { head: undefined, tail: undefined }
      this.#lanes.set(limitMs, lane)
    }
    deadline.lane = lane
    deadline.previous = lane.tail
    if (lane.tail) lane.tail.next = deadline
    else lane.head = deadline
    lane.tail = deadline
    if (deadline.expiresAt < this.#armedFor) this.#arm(deadline.expiresAt)
  }

  /** Takes a run out of its lane. The timer stays armed: firing early for nobody is cheaper. */
  unlink(deadline: Deadline): void {
    const lane = deadline.lane
    if (lane === undefined) return
    if (deadline.previous) deadline.previous.next = deadline.next
    else lane.head = deadline.next
    if (deadline.next) deadline.next.previous = deadline.previous
    else lane.tail = deadline.previous
    deadline.lane = undefined
    deadline.previous = undefined
    deadline.next = undefined
    if (lane.head === undefined && deadline.limitMs !== undefined) this.#lanes.delete(deadline.limitMs)
  }

  #arm(at: number): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#armedFor = at
    // Node fires a longer delay after 1 ms (with a warning); waking early for nobody is harmless.
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, Math.ceil(at - performance.now())))
    this.#timer = setTimeout(() => this.#tick(), delay)
    this.#timer.unref()
  }

  #tick(): void {
    this.#timer = undefined
    this.#armedFor = Number.POSITIVE_INFINITY
    const now = performance.now() + EARLY_FIRE_TOLERANCE_MS
    try {
      // Earliest first across limits, even when the timer is late and several are due. Firing a run
      // may end others (their listeners dispose them), so the heads are looked at again each time.
      for (let due = this.#earliest(); due !== undefined && due.expiresAt <= now; due = this.#earliest()) {
        due.expire()
      }
    } finally {
      // Even when a listener threw: the runs still waiting need their timer.
      const next = this.#earliest()
      if (next !== undefined && next.expiresAt < this.#armedFor) this.#arm(next.expiresAt)
    }
  }

  /** The waiting run that expires first: the earliest of the lanes' heads. */
  #earliest(): Deadline | undefined {
    let earliest: Deadline | undefined
    for (const lane of this.#lanes.values()) {
      if (lane.head !== undefined && (earliest === undefined || lane.head.expiresAt < earliest.expiresAt))
        earliest = lane.head
    }
    return earliest
  }
}

// A class rather than closures: one allocation per run instead of a dozen, which shows at 20k runs/s.
class Deadline implements RunDeadline, StopSignal {
  aborted = false
  reason: unknown
  timedOut = false
  readonly startedAt = performance.now()
  // The clock's bookkeeping: where this run waits, and until when.
  limitMs: number | undefined
  expiresAt = Number.POSITIVE_INFINITY
  lane: Lane | undefined
  previous: Deadline | undefined
  next: Deadline | undefined
  readonly #parent: AbortSignal
  readonly #clock: Clock
  // Rarely more than one listener at a time (the phase under way), so an array beats a Set.
  #listeners: StopListener[] = []
  #ended = false
  #onParentAbort: (() => void) | undefined

  constructor(parent: AbortSignal, clock: Clock) {
    this.#parent = parent
    this.#clock = clock
    if (parent.aborted) this.#fire(parent.reason)
  }

  /** From now on the job's signal stops this run at once (the clock calls it once it is not new). */
  listenToParent(): void {
    if (this.#ended || this.aborted) return
    if (this.#parent.aborted) {
      this.#fire(this.#parent.reason)
      return
    }
    this.#onParentAbort = () => this.#fire(this.#parent.reason)
    this.#parent.addEventListener('abort', this.#onParentAbort, { once: true })
  }

  get signal(): StopSignal {
    return this
  }

  elapsed(): number {
    return performance.now() - this.startedAt
  }

  addEventListener(_type: 'abort', listener: StopListener): void {
    this.#listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: StopListener): void {
    const at = this.#listeners.indexOf(listener)
    if (at >= 0) this.#listeners.splice(at, 1)
  }

  /** Called by the clock when the limit is reached. */
  expire(): void {
    this.#clock.unlink(this)
    this.timedOut = true
    this.#fire(new Error(`probe limit of ${this.limitMs} ms reached`))
  }

  dispose(): void {
    this.#ended = true
    this.#clock.unlink(this)
    if (this.#onParentAbort) this.#parent.removeEventListener('abort', this.#onParentAbort)
    this.#onParentAbort = undefined
    this.#listeners = []
  }

  #fire(why: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = why
    this.#clock.unlink(this)
    const current = this.#listeners
    this.#listeners = []
    for (const listener of current) listener()
  }
}

/** Rejects as soon as `signal` stops, so a caller never waits on work that cannot be cancelled. */
export function abortable<T>(work: Promise<T>, signal: StopSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(err)
      },
    )
  })
}
