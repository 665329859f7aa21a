// A test session: every check once, at once, flagged as a test-session run (CI=true inside
// Playwright runs). Retries are off: a session reports what one run saw.

import { randomUUID } from 'node:crypto'
import type { CheckDefinition } from '../model/checks.ts'
import type { Job } from '../model/job.ts'
import type { JobSource } from './job-source.ts'

export function createSessionSource(checks: readonly CheckDefinition[], sessionId: string): JobSource {
  return {
    async *jobs(signal: AbortSignal): AsyncGenerator<Job> {
      for (const check of checks) {
        if (signal.aborted) return
        yield {
          id: randomUUID(),
          check: { ...check, retryStrategy: { ...check.retryStrategy, type: 'NONE', maxRetries: 0 } },
          dueAt: Date.now(),
          attempt: 1,
          sessionId,
          testSession: true,
        }
      }
    },
    ack: async () => {},
  }
}
