import type { CheckResult, ResultStatus } from '../../model/result.ts'

export type StatusCounts = Record<ResultStatus, number>

export function countStatuses(results: readonly CheckResult[]): StatusCounts {
  const counts: StatusCounts = { passed: 0, degraded: 0, failed: 0 }
  for (const r of results) counts[r.status]++
  return counts
}

/** Degraded is its own column, never folded into passed. */
export function summaryHeader(counts: StatusCounts, durationMs: number): string {
  return `${counts.passed} passed, ${counts.degraded} degraded, ${counts.failed} failed (${(durationMs / 1000).toFixed(1)} s)`
}
