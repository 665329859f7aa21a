// Wakes long-polls (job claims, session completion) when this hub changes something. Replicas on a
// shared PostgreSQL do not hear each other, so waiters also wake on a short timeout and look again.

export interface Notifier {
  notify(): void
  /** The hub is stopping: every wait ends now and later ones return at once. */
  close(): void
  readonly closed: boolean
  /** Resolves on the next notify, after `ms`, or when the signal aborts, whichever comes first. */
  wait(ms: number, signal?: AbortSignal): Promise<void>
}

export function createNotifier(): Notifier {
  let waiters: Array<() => void> = []
  let closed = false
  return {
    get closed() {
      return closed
    },
    close() {
      closed = true
      this.notify()
    },
    notify() {
      const woken = waiters
      waiters = []
      for (const wake of woken) wake()
    },
    wait(ms, signal) {
      return new Promise<void>((resolve) => {
        if (closed) {
          resolve()
          return
        }
        const done = (): void => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', done)
          waiters = waiters.filter((w) => w !== done)
          resolve()
        }
        const timer = setTimeout(done, ms)
        signal?.addEventListener('abort', done, { once: true })
        waiters.push(done)
      })
    },
  }
}
