// JUnit XML as CI systems (GitHub Actions, GitLab, Jenkins) read it: one testsuite per check type,
// one testcase per check. Degraded checks pass, with a system-out note, since JUnit has no third state.

import type { CheckResult } from '../../model/result.ts'

export function junitReport(results: readonly CheckResult[], durationMs: number): string {
  const byType = new Map<string, CheckResult[]>()
  for (const r of results) byType.set(r.checkType, [...(byType.get(r.checkType) ?? []), r])
  const failures = results.filter((r) => r.status === 'failed').length
  const suites = [...byType.entries()].map(([type, list]) => {
    const cases = list.map((r) => {
      const open = `    <testcase classname="outpost.${xml(type)}" name="${xml(r.name)} (${xml(r.checkId)})" time="${seconds(r.durationMs)}"`
      if (r.status === 'failed') {
        const message = r.error ? `${r.error.code}: ${r.error.message}` : 'failed'
        const detail = r.assertions
          .filter((a) => !a.passed)
          .map((a) => `${a.source} ${a.property ?? ''} ${a.comparison} ${a.target}: got ${String(a.actual)}`)
          .join('\n')
        return `${open}>\n      <failure message="${xml(message)}">${xml(detail || message)}</failure>\n    </testcase>`
      }
      if (r.status === 'degraded') return `${open}>\n      <system-out>degraded</system-out>\n    </testcase>`
      return `${open}/>`
    })
    const suiteFailures = list.filter((r) => r.status === 'failed').length
    const time = list.reduce((sum, r) => sum + r.durationMs, 0)
    return `  <testsuite name="${xml(type)}" tests="${list.length}" failures="${suiteFailures}" errors="0" time="${seconds(time)}">\n${cases.join('\n')}\n  </testsuite>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="outpost" tests="${results.length}" failures="${failures}" errors="0" time="${seconds(durationMs)}">\n${suites.join('\n')}\n</testsuites>\n`
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3)
}

function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}
