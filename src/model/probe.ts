// The one seam every probe and runner meets (blackbox_exporter's ProbeFn, in TypeScript).

import type { Logger } from '../telemetry/logger.ts'
import type { CheckDefinition } from './checks.ts'
import type {
  ArtifactRef,
  AssertionResult,
  LogLine,
  ResultError,
  ResultStatus,
  StepResult,
  Timings,
} from './result.ts'

export interface ProbeContext {
  /** Aborted at the job's timeout or when the agent must stop at once. */
  signal: AbortSignal
  log: Logger
  /** A directory of this run's own, for artifacts and scratch files. Created on first use by the probe. */
  runDir: string
  testSession: boolean
}

/** What a probe knows; the scheduler adds identity, timing and agent facts to make a CheckResult. */
export interface ProbeOutcome {
  status: ResultStatus
  responseTimeMs?: number
  error?: ResultError
  assertions: AssertionResult[]
  timings?: Timings
  steps?: StepResult[]
  logs?: LogLine[]
  artifacts?: ArtifactRef[]
  details?: Record<string, unknown>
}

export type Probe<C extends CheckDefinition> = (check: C, ctx: ProbeContext) => Promise<ProbeOutcome>
