// The default reporter: a line per check as it finishes, then a summary whose header counts passed,
// degraded and failed, and the reasons of every check that did not pass.

import type { CheckResult } from '../../model/result.ts'
import { countStatuses, summaryHeader } from './summary.ts'

const MARK = { passed: '✔', degraded: '◐', failed: '✖' } as const

export function listProgressLine(result: CheckResult, done: number, total: number): string {
  const time = Math.round(result.responseTimeMs ?? result.durationMs)
  const reason = result.error ? `  ${result.error.code}: ${result.error.message}` : ''
  return `${MARK[result.status]} ${result.status.padEnd(8)} [${done}/${total}] ${result.checkType.padEnd(10)} ${result.checkId} (${time} ms)${reason}\n`
}

export function listSummary(results: readonly CheckResult[], durationMs: number): string {
  const lines = ['', `Summary: ${summaryHeader(countStatuses(results), durationMs)}`]
  for (const r of results.filter((r) => r.status !== 'passed')) {
    lines.push(`  ${MARK[r.status]} ${r.checkId} (${r.name})`)
    if (r.error) lines.push(`      ${r.error.code}: ${r.error.message}`)
    for (const a of r.assertions.filter((a) => !a.passed)) {
      const property = a.property ? ` ${a.property}` : ''
      lines.push(
        `      assertion ${a.source}${property} ${a.comparison} ${a.target}: got ${String(a.actual)}`,
      )
    }
    for (const s of r.steps?.filter((s) => s.status !== 'passed') ?? []) {
      lines.push(`      step "${s.name}" ${s.status}${s.error ? `: ${s.error}` : ''}`)
    }
  }
  return `${lines.join('\n')}\n`
}
