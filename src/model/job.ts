import type { CheckDefinition } from './checks.ts'

/** One run of one check, as handed from a job source to the scheduler. */
export interface Job {
  /** Run id: unique per run and stable across retries of delivery, so results are idempotent. */
  id: string
  check: CheckDefinition
  /** Epoch ms at which the run was due; start lag is measured against it. */
  dueAt: number
  attempt: number
  /** Set for runs of a test session (`outpost test`, hub-triggered sessions). */
  sessionId?: string
  testSession: boolean
}
