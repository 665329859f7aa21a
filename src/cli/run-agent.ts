// The life of an agent process, shared by `start` and `agent`: executors, the agent itself, signals
// (first drains, second stops at once), fatal errors, and the closing of everything it opened.

import { type Agent, startAgent } from '../agent/agent.ts'
import { loadOrCreateAgentId } from '../agent/agent-id.ts'
import { type AgentExecutors, createDefaultExecutors } from '../agent/default-executors.ts'
import type { JobSource } from '../agent/job-source.ts'
import type { ResultSink } from '../agent/result-sink.ts'
import type { CheckDefinition } from '../model/checks.ts'
import type { AgentInfo } from '../model/result.ts'
import type { ErrorReporter } from '../telemetry/error-reporting.ts'
import type { Logger } from '../telemetry/logger.ts'
import { AGENT_VERSION } from '../version.ts'
import type { AgentSetup } from './agent-setup.ts'
import { type CliIo, ExitCode } from './io.ts'

/** How long the last error events may take to leave before the process exits. */
const FLUSH_TIMEOUT_MS = 5000

export interface AgentProcessOptions {
  setup: AgentSetup
  io: CliIo
  /** Checks known at start (their heartbeats get ping URLs). */
  checks: readonly CheckDefinition[]
  /** Builds the job source and sinks once the executors exist (remote mode advertises what they run). */
  wire(executors: AgentExecutors, info: AgentInfo, requestStop: () => void): Promise<AgentWiring>
  /** Printed once the agent is ready. */
  readyMessage: string
}

export interface AgentWiring {
  source: JobSource
  /** Replaces results.ndjson when given. */
  sink?: ResultSink
  extraSinks?: ResultSink[]
  /** After the agent stopped: final deliveries, closing connections. */
  close?(): Promise<void>
  /** Set when the run must end with a usage error (a rejected API key). */
  fatal?(): string | undefined
}

export async function runAgentProcess(options: AgentProcessOptions): Promise<number> {
  const { setup, io } = options
  const { config, scrubber, log, errors } = setup
  const info: AgentInfo = {
    id: await loadOrCreateAgentId(config.dataDir),
    version: AGENT_VERSION,
    flavor: config.flavor,
  }
  let agent: Agent
  let executors: AgentExecutors | undefined
  let wiring: AgentWiring | undefined
  // The wiring may need to stop the agent (a rejected key) before or after it exists.
  let started: Agent | undefined
  let stopRequested = false
  const requestStop = (): void => {
    stopRequested = true
    void started?.stop()
  }
  try {
    executors = await createDefaultExecutors({
      config,
      log,
      scrubber,
      checks: options.checks,
      heartbeatIngress: true,
      secretValues: setup.secretValues,
      env: io.env,
    })
    wiring = await options.wire(executors, info, requestStop)
    agent = await startAgent({
      config,
      log,
      scrubber,
      source: wiring.source,
      sink: wiring.sink,
      extraSinks: wiring.extraSinks,
      executors: executors.table,
      info,
      reportError: (error) => errors.capture(error),
    })
  } catch (error) {
    log.fatal({ err: error }, `the agent could not start: ${(error as Error).message}`)
    errors.capture(error)
    await wiring?.close?.()
    await executors?.close()
    await errors.flush(FLUSH_TIMEOUT_MS)
    log.flush()
    return ExitCode.failed
  }
  started = agent
  if (stopRequested) void agent.stop()
  log.info({ flavor: config.flavor, version: AGENT_VERSION }, options.readyMessage)
  handleSignals(agent, log, errors)
  await agent.stopped
  await wiring.close?.()
  await executors.close()
  await errors.flush(FLUSH_TIMEOUT_MS)
  log.info('agent stopped')
  log.flush()
  const fatal = wiring.fatal?.()
  if (fatal) {
    io.stderr(`outpost: ${fatal}\n`)
    return ExitCode.usage
  }
  return ExitCode.ok
}

/** First SIGTERM/SIGINT drains; a second one abandons the drain and exits after flushing. */
function handleSignals(agent: Agent, log: Logger, errors: ErrorReporter): void {
  let received = 0
  const onSignal = (signal: NodeJS.Signals): void => {
    received += 1
    if (received === 1) {
      log.info({ signal }, `${signal} received: draining (send it again to stop at once)`)
      void agent.stop()
    } else {
      log.warn({ signal }, `${signal} received again: aborting running checks and stopping`)
      agent.stopNow()
    }
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  const onFatal = (error: unknown, kind: string): void => {
    // Never stay half-alive: log, stop as cleanly as we can, and exit non-zero.
    log.fatal({ err: error }, `${kind}: the agent is stopping`)
    errors.capture(error)
    process.exitCode = 1
    agent.stopNow()
    void Promise.all([agent.stopped, errors.flush(FLUSH_TIMEOUT_MS)]).finally(() => {
      log.flush()
      process.exit(1)
    })
  }
  process.on('uncaughtException', (error) => onFatal(error, 'uncaught exception'))
  process.on('unhandledRejection', (reason) => onFatal(reason, 'unhandled promise rejection'))
}
