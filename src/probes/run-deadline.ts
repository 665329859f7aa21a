// One abort signal per probe run: fired by the job's signal (job timeout, shutdown) or by the probe's
// own limit, whichever comes first. Cheaper than AbortSignal.any + AbortSignal.timeout on the hot
// path, and it knows which of the two fired.

export interface RunDeadline {
  readonly signal: AbortSignal
  /** Milliseconds since the run started (performance.now based). */
  elapsed(): number
  /** True when the probe's own limit fired rather than the job's signal. */
  readonly timedOut: boolean
  /** Clears the timer and the listener; call once the run is over. */
  dispose(): void
}

export function createRunDeadline(parent: AbortSignal, limitMs: number | undefined): RunDeadline {
  const startedAt = performance.now()
  const controller = new AbortController()
  let timedOut = false
  const onParentAbort = (): void => controller.abort(parent.reason)
  if (parent.aborted) controller.abort(parent.reason)
  else parent.addEventListener('abort', onParentAbort, { once: true })
  const timer =
    limitMs !== undefined && limitMs > 0
      ? setTimeout(() => {
          timedOut = true
          controller.abort(new Error(`probe limit of ${limitMs} ms reached`))
        }, limitMs)
      : undefined
  return {
    signal: controller.signal,
    elapsed: () => performance.now() - startedAt,
    get timedOut() {
      return timedOut
    },
    dispose() {
      if (timer) clearTimeout(timer)
      parent.removeEventListener('abort', onParentAbort)
    },
  }
}

/** Rejects as soon as `signal` aborts, so a caller never waits on work that cannot be cancelled. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
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
