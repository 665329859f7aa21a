// Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter"):
// agents that lost the hub together do not all come back in the same instant.

export interface BackoffPolicy {
  baseMs: number
  maxMs: number
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000 }

/** Delay before retry number `attempt` (1-based). */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 30))
  return Math.round(random() * ceiling)
}

/** Resolves after `ms`, or early (without throwing) when the signal aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve()
      return
    }
    const done = (): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
