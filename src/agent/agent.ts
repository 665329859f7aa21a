// Wires one agent together: health server, queues, scheduler, sink. cmd-style code (the CLI) picks
// the job source and the executors and passes them in, so tests and benches can run a real agent
// with their own.

import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { AgentConfig } from '../config/agent-config.ts'
import type { AgentInfo } from '../model/result.ts'
import type { SecretScrubber } from '../secrets/scrubber.ts'
import type { Logger } from '../telemetry/logger.ts'
import { type AgentMetrics, createAgentMetrics } from '../telemetry/metrics.ts'
import { type ExecutorTable, executorFor } from './executors.ts'
import { type HealthServer, type HealthServerOptions, startHealthServer } from './health-server.ts'
import type { JobSource } from './job-source.ts'
import { createLifecycle, type Lifecycle } from './lifecycle.ts'
import { createQueues } from './queues.ts'
import { createNdjsonSink, type ResultSink, teeSink } from './result-sink.ts'
import { RunAborted, runJob } from './run-job.ts'
import { createScheduler } from './scheduler.ts'

export interface AgentDeps {
  config: Readonly<AgentConfig>
  log: Logger
  scrubber: SecretScrubber
  source: JobSource
  executors: ExecutorTable
  info: AgentInfo
  /** Sinks besides results.ndjson (a test reporter, the hub reporter). */
  extraSinks?: ResultSink[]
  /** Replaces results.ndjson entirely when given. */
  sink?: ResultSink
  /**
   * Test sessions run beside a daemon that may hold the health port already; there a busy port is
   * a warning, not a failure (checks against the port then reach the daemon's server).
   */
  healthServerOptional?: boolean
  /** Where the agent's own errors go (Sentry, unless turned off). */
  reportError?: (error: unknown) => void
  now?: () => number
}

export interface Agent {
  lifecycle: Lifecycle
  metrics: AgentMetrics
  healthPort: number
  /** Graceful stop: readiness 503, no new job, in-flight jobs finish within the drain timeout. */
  stop(): Promise<void>
  /** Abandons the drain: running jobs are aborted and recorded as failed, results flushed. */
  stopNow(): void
  /** Resolves when the agent has stopped. */
  stopped: Promise<void>
}

const ABORT_GRACE_MS = 5000

async function startHealth(options: HealthServerOptions, deps: AgentDeps): Promise<HealthServer> {
  try {
    const health = await startHealthServer(options)
    deps.log.info({ port: health.port }, `health server listening on ${options.host}:${health.port}`)
    return health
  } catch (error) {
    if (!deps.healthServerOptional || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    deps.log.warn({ port: options.port }, `health server not started: port ${options.port} is in use`)
    return { port: options.port, close: async () => {} }
  }
}

export async function startAgent(deps: AgentDeps): Promise<Agent> {
  const { config, log } = deps
  const lifecycle = createLifecycle((from, to) => log.info({ from, to }, `lifecycle: ${from} -> ${to}`))
  const metrics = createAgentMetrics({ version: deps.info.version, flavor: deps.info.flavor })
  // Storage first: a data directory that cannot be written stops start-up before any port is bound.
  await mkdir(config.dataDir, { recursive: true })
  const ndjson = deps.sink
    ? undefined
    : await createNdjsonSink(path.join(config.dataDir, 'results.ndjson'), log)
  let health: HealthServer
  try {
    health = await startHealth({ lifecycle, metrics, host: config.listenHost, port: config.healthPort }, deps)
  } catch (error) {
    await ndjson?.close()
    metrics.close()
    throw error
  }
  const sink = teeSink([...(deps.sink ? [deps.sink] : [ndjson!]), ...(deps.extraSinks ?? [])])
  const queues = createQueues({
    uptimeConcurrency: config.uptimeConcurrency,
    jobConcurrency: config.jobConcurrency,
    metrics,
  })
  const runsDir = path.join(config.dataDir, 'runs')
  const scheduler = createScheduler({
    source: deps.source,
    queues,
    sink,
    metrics,
    log,
    now: deps.now,
    reportError: deps.reportError,
    run: (job, stop) =>
      runJob(job, stop, {
        execute: executorFor(deps.executors, config.flavor, job.check.type),
        agent: deps.info,
        location: config.location,
        scrubber: deps.scrubber,
        log,
        runsDir,
        now: deps.now,
        abortGraceMs: ABORT_GRACE_MS,
        reportError: deps.reportError,
      }),
  })

  const pulling = new AbortController()
  const pullDone = scheduler.pull(pulling.signal).catch((err: unknown) => {
    log.error({ err }, 'the job source failed; stopping the agent')
    deps.reportError?.(err)
    void stop()
  })
  lifecycle.advance('ready')

  let resolveStopNow: () => void = () => {}
  const stopNowRequested = new Promise<void>((resolve) => {
    resolveStopNow = resolve
  })
  let stopping: Promise<void> | undefined
  let markStopped: () => void = () => {}
  const stopped = new Promise<void>((resolve) => {
    markStopped = resolve
  })

  const drain = async (): Promise<void> => {
    lifecycle.advance('draining')
    pulling.abort()
    await pullDone
    const dropped = queues.clearWaiting()
    const retries = scheduler.cancelRetries()
    const inFlight = scheduler.running()
    log.info(
      {
        inFlight,
        droppedWaiting: dropped,
        cancelledRetries: retries,
        drainTimeoutSeconds: config.drainTimeoutSeconds,
      },
      `draining: waiting for ${inFlight} running job(s), at most ${config.drainTimeoutSeconds} s`,
    )
    const idle = await Promise.race([
      queues.idle(config.drainTimeoutSeconds * 1000),
      stopNowRequested.then(() => false),
    ])
    if (!idle) {
      scheduler.abortRunning(
        new RunAborted(
          'SHUTDOWN',
          `the agent shut down while the check was running (AGENT_DRAIN_TIMEOUT=${config.drainTimeoutSeconds} s ran out or a second signal came)`,
        ),
      )
      await queues.idle(ABORT_GRACE_MS + 1000)
    }
    await sink.flush()
    await ndjson?.close()
    await health.close()
    metrics.close()
    lifecycle.advance('stopped')
    markStopped()
  }

  const stop = (): Promise<void> => {
    stopping ??= drain()
    return stopping
  }

  return {
    lifecycle,
    metrics,
    healthPort: health.port,
    stop,
    stopNow() {
      resolveStopNow()
      void stop()
    },
    stopped,
  }
}
