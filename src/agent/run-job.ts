// Runs one job: gives the executor a signal that fires at the job's timeout (or when the agent must
// stop), turns whatever happens (an outcome, a throw, a hang) into a CheckResult, and scrubs it.

import path from 'node:path'
import { timeoutSecondsOf } from '../model/checks.ts'
import type { Job } from '../model/job.ts'
import type { ProbeOutcome } from '../model/probe.ts'
import type { AgentInfo, CheckResult } from '../model/result.ts'
import { scrubbableValues, secretsFromCheckVariables } from '../secrets/named-secrets.ts'
import { scrubDeep } from '../secrets/scrub-deep.ts'
import type { SecretScrubber } from '../secrets/scrubber.ts'
import type { Logger } from '../telemetry/logger.ts'
import { type Executor, failedOutcome } from './executors.ts'

export interface RunJobDeps {
  execute: Executor
  agent: AgentInfo
  location: string
  /** The agent's secrets; a run adds its check's own secret variables. */
  scrubber: SecretScrubber
  log: Logger
  /** Runs get their own directory below this one (artifacts, scratch). */
  runsDir: string
  now?: () => number
  /**
   * How long an executor may take to return after its signal fired before the run is written off.
   * Executors that own child processes kill them within this grace.
   */
  abortGraceMs?: number
  /** The agent's own errors (an executor that throws is a bug of ours) go to error reporting. */
  reportError?: (error: unknown) => void
}

/** Thrown into the signal as its reason so the result can say why the run stopped. */
export class RunAborted extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.name = 'RunAborted'
    this.code = code
  }
}

export async function runJob(job: Job, stop: AbortSignal, deps: RunJobDeps): Promise<CheckResult> {
  const now = deps.now ?? Date.now
  const timeoutMs = timeoutSecondsOf(job.check) * 1000
  const timeout = new AbortController()
  const timer = setTimeout(
    () => timeout.abort(new RunAborted('TIMEOUT', `check timed out after ${timeoutMs / 1000} s`)),
    timeoutMs,
  )
  const signal = AbortSignal.any([timeout.signal, stop])
  const startedAt = now()
  const log = deps.log.child({ checkId: job.check.logicalId, runId: job.id })
  let outcome: ProbeOutcome
  const writeOff = writtenOffAfterAbort(signal, deps.abortGraceMs ?? 5000)
  try {
    outcome = await Promise.race([
      deps.execute(job.check, {
        signal,
        log,
        runDir: path.join(deps.runsDir, job.id),
        testSession: job.testSession,
      }),
      writeOff.outcome,
    ])
  } catch (error) {
    outcome = failedOutcome('RUNNER_ERROR', `the check could not be run: ${messageOf(error)}`)
    log.error({ err: error }, 'executor threw')
    deps.reportError?.(error)
  } finally {
    clearTimeout(timer)
    writeOff.dispose()
  }
  if (signal.aborted) outcome = explainAbort(outcome, abortReason(signal))
  const result: CheckResult = {
    id: job.id,
    checkId: job.check.logicalId,
    checkType: job.check.type,
    name: job.check.name,
    status: outcome.status,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: now() - startedAt,
    responseTimeMs: outcome.responseTimeMs,
    location: deps.location,
    attempt: job.attempt,
    sessionId: job.sessionId,
    runtimeId: 'runtimeId' in job.check ? job.check.runtimeId : undefined,
    error: outcome.error,
    assertions: outcome.assertions,
    timings: outcome.timings,
    steps: outcome.steps,
    logs: outcome.logs,
    artifacts: outcome.artifacts ?? [],
    details: outcome.details,
    agent: deps.agent,
  }
  return scrubDeep(dropUndefined(result), scrubberForRun(job, deps.scrubber, log))
}

/**
 * A run stopped by the agent (timeout, shutdown) fails with the agent's reason, which says more
 * than the probe's own "aborted"; the probe's error is kept beside it. A probe that ignored its
 * signal and finished late still counts as stopped.
 */
function explainAbort(outcome: ProbeOutcome, reason: { code: string; message: string }): ProbeOutcome {
  if (outcome.error?.code === reason.code) return { ...outcome, status: 'failed' }
  const details = outcome.error ? { ...outcome.details, probeError: outcome.error } : outcome.details
  return { ...outcome, status: 'failed', error: reason, details }
}

function scrubberForRun(job: Job, agentScrubber: SecretScrubber, log: Logger): SecretScrubber {
  const values = scrubbableValues(secretsFromCheckVariables(job.check.environmentVariables), (warning) =>
    log.warn({ variable: warning.name }, warning.message),
  )
  return agentScrubber.withSecrets(values)
}

/**
 * An outcome that arrives `graceMs` after the signal fires, for an executor that ignores it.
 * dispose() must be called when the run is over: the listener on the signal (a composite of the
 * agent's long-lived stop signal) would otherwise keep this run, and its outcome through the race,
 * alive for as long as the agent runs.
 */
function writtenOffAfterAbort(
  signal: AbortSignal,
  graceMs: number,
): { outcome: Promise<ProbeOutcome>; dispose(): void } {
  let timer: NodeJS.Timeout | undefined
  let writeOff: () => void = () => {}
  const outcome = new Promise<ProbeOutcome>((resolve) => {
    writeOff = (): void => {
      timer = setTimeout(() => {
        const reason = abortReason(signal)
        resolve(
          failedOutcome(
            reason.code,
            `${reason.message}; the check did not stop when asked and was abandoned`,
          ),
        )
      }, graceMs)
      timer.unref()
    }
    if (signal.aborted) writeOff()
    else signal.addEventListener('abort', writeOff, { once: true })
  })
  return {
    outcome,
    dispose() {
      signal.removeEventListener('abort', writeOff)
      clearTimeout(timer)
    },
  }
}

function abortReason(signal: AbortSignal): { code: string; message: string } {
  const reason: unknown = signal.reason
  if (reason instanceof RunAborted) return { code: reason.code, message: reason.message }
  return { code: 'ABORTED', message: `the run was aborted: ${messageOf(reason)}` }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
