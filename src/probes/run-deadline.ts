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
  /** Clears the timer and the listener; call once the run is over. */
  dispose(): void
}

export function createRunDeadline(parent: AbortSignal, limitMs: number | undefined): RunDeadline {
  return new Deadline(parent, limitMs)
}

// A class rather than closures: one allocation per run instead of a dozen, which shows at 20k runs/s.
class Deadline implements RunDeadline, StopSignal {
  aborted = false
  reason: unknown
  timedOut = false
  readonly #startedAt = performance.now()
  readonly #parent: AbortSignal
  readonly #timer: NodeJS.Timeout | undefined
  // Rarely more than one listener at a time (the phase under way), so an array beats a Set.
  #listeners: StopListener[] = []
  readonly #onParentAbort = (): void => this.#fire(this.#parent.reason)

  constructor(parent: AbortSignal, limitMs: number | undefined) {
    this.#parent = parent
    if (parent.aborted) this.#fire(parent.reason)
    else parent.addEventListener('abort', this.#onParentAbort, { once: true })
    this.#timer =
      limitMs !== undefined && limitMs > 0
        ? setTimeout(() => {
            this.timedOut = true
            this.#fire(new Error(`probe limit of ${limitMs} ms reached`))
          }, limitMs)
        : undefined
  }

  get signal(): StopSignal {
    return this
  }

  elapsed(): number {
    return performance.now() - this.#startedAt
  }

  addEventListener(_type: 'abort', listener: StopListener): void {
    this.#listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: StopListener): void {
    const at = this.#listeners.indexOf(listener)
    if (at >= 0) this.#listeners.splice(at, 1)
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#parent.removeEventListener('abort', this.#onParentAbort)
    this.#listeners = []
  }

  #fire(why: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = why
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
