// Pulls jobs from a source into the queues. Skips a run when the previous run of the same check is
// still going (counted), retries failed runs under the check's retry strategy, and writes every
// result to the sink before acknowledging it to the source.

import { randomUUID } from 'node:crypto'
import type { Job } from '../model/job.ts'
import type { CheckResult } from '../model/result.ts'
import type { Logger } from '../telemetry/logger.ts'
import type { AgentMetrics } from '../telemetry/metrics.ts'
import type { JobSource } from './job-source.ts'
import type { Queues } from './queues.ts'
import type { ResultSink } from './result-sink.ts'
import { retryBackoffSeconds } from './schedule-math.ts'

export interface SchedulerDeps {
  source: JobSource
  queues: Queues
  sink: ResultSink
  /** Runs one job to its result; `stop` fires when in-flight jobs must be abandoned. */
  run(job: Job, stop: AbortSignal): Promise<CheckResult>
  metrics: AgentMetrics
  log: Logger
  now?: () => number
  reportError?: (error: unknown) => void
}

export interface Scheduler {
  /** Takes jobs until `signal` aborts; resolves once the source is closed. */
  pull(signal: AbortSignal): Promise<void>
  /** Aborts running jobs: each still yields a failed result naming `reason`. */
  abortRunning(reason: Error): void
  /** Retries waiting for their backoff are cancelled (the agent is stopping). */
  cancelRetries(): number
  running(): number
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const now = deps.now ?? Date.now
  // Checks with a run in flight or a retry pending, so overlapping runs are skipped.
  const busy = new Set<string>()
  const retryTimers = new Set<NodeJS.Timeout>()
  const stopRunning = new AbortController()

  const finish = async (job: Job, result: CheckResult): Promise<void> => {
    deps.metrics.jobsFinished.inc({ type: job.check.type, status: result.status })
    deps.metrics.jobDuration.observe({ type: job.check.type }, result.durationMs / 1000)
    await deps.sink.write(result)
    await deps.source.ack(job, result).catch((err: unknown) => {
      deps.log.warn({ err, runId: job.id }, 'could not acknowledge a result to its source')
    })
  }

  const retryDelayMs = (job: Job): number | undefined => {
    const strategy = job.check.retryStrategy
    if (strategy.type === 'NONE' || job.attempt > strategy.maxRetries) return undefined
    const delay = retryBackoffSeconds(strategy.type, strategy.baseBackoffSeconds, job.attempt) * 1000
    const firstStart = job.dueAt
    if (now() + delay - firstStart > strategy.maxDurationSeconds * 1000) return undefined
    return delay
  }

  const execute = async (job: Job, queueName: 'light' | 'heavy'): Promise<void> => {
    deps.metrics.jobsStarted.inc({ type: job.check.type })
    deps.metrics.startLag.observe({ queue: queueName }, Math.max(0, now() - job.dueAt) / 1000)
    const result = await deps.run(job, stopRunning.signal)
    const delay = result.status === 'failed' && !stopRunning.signal.aborted ? retryDelayMs(job) : undefined
    if (delay === undefined) {
      await finish(job, result)
      busy.delete(job.check.logicalId)
      return
    }
    await finish(job, { ...result, willRetry: true })
    const timer = setTimeout(() => {
      retryTimers.delete(timer)
      enqueue({ ...job, id: randomUUID(), attempt: job.attempt + 1 })
    }, delay)
    retryTimers.add(timer)
  }

  const enqueue = (job: Job): void => {
    const { name, queue } = deps.queues.for(job.check.type)
    queue
      .add(() => execute(job, name))
      .catch((err: unknown) => {
        busy.delete(job.check.logicalId)
        // p-queue rejects jobs it drops on clear(): those never started, and the drain counts them.
        if (err instanceof DOMException && err.name === 'AbortError') return
        deps.log.error({ err, checkId: job.check.logicalId }, 'job failed outside its run')
        deps.reportError?.(err)
      })
  }

  return {
    async pull(signal) {
      for await (const job of deps.source.jobs(signal)) {
        const key = job.check.logicalId
        if (busy.has(key)) {
          deps.metrics.skippedRuns.inc({ type: job.check.type })
          deps.log.debug({ checkId: key }, 'run skipped: the previous run is still going')
          continue
        }
        busy.add(key)
        enqueue(job)
      }
    },
    abortRunning(reason) {
      stopRunning.abort(reason)
    },
    cancelRetries() {
      for (const timer of retryTimers) clearTimeout(timer)
      const n = retryTimers.size
      retryTimers.clear()
      return n
    },
    running: () => deps.queues.pending(),
  }
}
