// How a Playwright run ended, in words for the result: the failure code and message, and where its
// time went.

import type { GroupRunResult } from './process-group.ts'
import type { RunEvents } from './run-events.ts'

export function failureOf(
  run: GroupRunResult,
  events: RunEvents,
  timeoutMs: number,
  abortReason: unknown,
): { code: string; message: string } {
  const output = run.output
  if (run.aborted) {
    // The agent says why it stopped the run (timeout, shutdown); without a reason it was the timeout.
    const reason = abortReason as { code?: unknown; message?: unknown } | undefined
    if (typeof reason?.code === 'string' && typeof reason.message === 'string') {
      return { code: reason.code, message: `the run was stopped: ${reason.message}` }
    }
    return { code: 'TIMEOUT', message: `the run was stopped at its timeout (${timeoutMs} ms)` }
  }
  if (/heap out of memory|Reached heap limit/i.test(output) || events.errors.some((e) => /heap/i.test(e))) {
    return { code: 'OUT_OF_MEMORY', message: 'the run ran out of memory (its heap cap was reached)' }
  }
  if (run.spawnError)
    return { code: 'RUNNER_ERROR', message: `could not start Playwright: ${run.spawnError}` }
  const timedOut = events.tests.find((t) => t.status === 'timedOut')
  if (timedOut) return { code: 'TIMEOUT', message: firstLines(timedOut.error ?? `test timed out`) }
  const failedTest = events.tests.find((t) => t.status !== 'passed' && t.status !== 'skipped')
  if (failedTest) {
    const crashed = /exited unexpectedly|Worker process|crash/i.test(failedTest.error ?? '')
    return {
      code: crashed ? 'CRASHED' : 'TEST_FAILED',
      message: firstLines(failedTest.error ?? failedTest.status),
    }
  }
  if (events.errors.length > 0) return { code: 'RUNNER_ERROR', message: firstLines(events.errors.join('\n')) }
  if (run.exitSignal) return { code: 'CRASHED', message: `Playwright was killed by ${run.exitSignal}` }
  if (events.tests.length === 0) {
    const tail = output.trim().split('\n').slice(-3).join(' | ')
    return run.exitCode === 0
      ? { code: 'NO_TESTS', message: 'the check declares no test; wrap its steps in test(...)' }
      : {
          code: 'CRASHED',
          message: `Playwright exited with code ${run.exitCode} before any test ended: ${tail}`,
        }
  }
  return { code: 'CRASHED', message: `Playwright exited with code ${run.exitCode}` }
}

function firstLines(s: string, max = 1500): string {
  const text = s.split('\n').slice(0, 12).join('\n').trim()
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** Where a run's time went, for diagnosis and bench/multistep; phases Playwright did not reach are left out. */
export function runPhases(events: RunEvents, started: number, exitedAt: number): Record<string, number> {
  const phases: Record<string, number> = {}
  if (events.beganAt) phases.playwrightStart = events.beganAt - started
  if (events.beganAt && events.firstTestAt) phases.workerStart = events.firstTestAt - events.beganAt
  if (events.firstTestAt && events.endedAt) phases.tests = events.endedAt - events.firstTestAt
  if (events.endedAt) phases.exit = exitedAt - events.endedAt
  return phases
}
