// A suite run in words for the result: one step per test, the tests' outcomes, and why it failed.

import type { StepResult } from '../../model/result.ts'
import type { GroupRunResult } from '../process-group.ts'
import type { RunEvents, TestOutcome } from '../run-events.ts'

export function lastLineOf(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim())
  return (lines.at(-1) ?? '').slice(0, 300)
}

/** A test that ended as it was expected to (test.fail() included), or was skipped. */
export function testPassed(t: TestOutcome): boolean {
  return t.status === 'skipped' || t.status === t.expectedStatus
}

export function suiteSteps(tests: TestOutcome[]): StepResult[] {
  return tests.map((t) => ({
    name: [t.project, ...t.titlePath].filter(Boolean).join(' › '),
    status: t.status === 'skipped' ? 'skipped' : testPassed(t) ? 'passed' : 'failed',
    durationMs: Math.round(t.durationMs),
    ...(t.error ? { error: t.error } : {}),
  }))
}

export function suiteTests(tests: TestOutcome[]): Record<string, unknown>[] {
  return tests.map((t) => ({
    title: t.titlePath.join(' › '),
    project: t.project,
    status: t.status,
    expectedStatus: t.expectedStatus,
    durationMs: Math.round(t.durationMs),
    ...(t.error ? { error: t.error } : {}),
  }))
}

/** `output` is the run's output already scrubbed. */
export function suiteFailure(
  run: GroupRunResult,
  events: RunEvents,
  output: string,
  elapsedMs: number,
): { code: string; message: string } | undefined {
  if (run.aborted)
    return { code: 'TIMEOUT', message: `the suite was stopped at its timeout after ${elapsedMs} ms` }
  const failed = events.tests.filter((t) => !testPassed(t))
  if (failed.length > 0) {
    const names = failed.slice(0, 5).map((t) => t.titlePath.join(' › '))
    return {
      code: 'TEST_FAILED',
      message: `${failed.length} of ${events.tests.length} tests failed: ${names.join(', ')}`,
    }
  }
  if (events.errors.length > 0)
    return { code: 'RUNNER_ERROR', message: events.errors.join('\n').slice(0, 1500) }
  if (run.exitCode !== 0) {
    const how = run.spawnError ?? `code ${run.exitCode}`
    return { code: 'CRASHED', message: `the test command exited with ${how}: ${lastLineOf(output)}` }
  }
  if (events.tests.length === 0) {
    return { code: 'NO_TESTS', message: 'the suite ran no test (check pwProjects and pwTags)' }
  }
  return undefined
}
