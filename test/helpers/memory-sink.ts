import type { ResultSink } from '../../src/agent/result-sink.ts'
import type { CheckResult } from '../../src/model/result.ts'

/** Keeps results in an array and lets a test wait for the n-th one. */
export function memorySink(): ResultSink & {
  results: CheckResult[]
  waitFor(n: number): Promise<CheckResult[]>
} {
  const results: CheckResult[] = []
  const waiters: { n: number; resolve: (r: CheckResult[]) => void }[] = []
  return {
    results,
    async write(result) {
      results.push(result)
      for (const w of waiters.filter((w) => results.length >= w.n)) w.resolve(results)
    },
    async flush() {},
    waitFor(n) {
      if (results.length >= n) return Promise.resolve(results)
      return new Promise((resolve) => waiters.push({ n, resolve }))
    },
  }
}
