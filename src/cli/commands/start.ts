// `outpost start`: the agent on local checks (monitors as code), writing results.ndjson.

import { parseArgs } from 'node:util'
import { type Agent, startAgent } from '../../agent/agent.ts'
import { loadOrCreateAgentId } from '../../agent/agent-id.ts'
import { type AgentExecutors, createDefaultExecutors } from '../../agent/default-executors.ts'
import { createLocalSource } from '../../agent/local-source.ts'
import type { ErrorReporter } from '../../telemetry/error-reporting.ts'
import type { Logger } from '../../telemetry/logger.ts'
import { AGENT_VERSION } from '../../version.ts'
import { loadChecksOrExplain, resolveChecksDir, setUpAgent } from '../agent-setup.ts'
import { type CliIo, ExitCode } from '../io.ts'

/** How long the last error events may take to leave before the process exits. */
const FLUSH_TIMEOUT_MS = 5000

export const START_USAGE = `usage: outpost start [--checks <dir>]

Runs the agent on the checks in <dir> (default: ./checks when it exists, else examples/checks),
each on its frequency. Results are appended to $AGENT_DATA_DIR/results.ndjson (default
./.outpost) and logged. Health: http://localhost:$AGENT_HEALTH_PORT/-/readiness (default 8081).

Options:
  --checks <dir>  directory holding **/*.check.ts files
  -h, --help      show this help

Environment: see README.md ("Configuration"). Stops gracefully on SIGTERM or SIGINT.`

export async function startCommand(args: string[], io: CliIo): Promise<number> {
  let values: { checks?: string; help?: boolean }
  try {
    values = parseArgs({
      args,
      options: { checks: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    io.stderr(`outpost start: ${(error as Error).message}\n${START_USAGE}\n`)
    return ExitCode.usage
  }
  if (values.help) {
    io.stdout(`${START_USAGE}\n`)
    return ExitCode.ok
  }
  const setup = await setUpAgent(io, { command: 'start' })
  if (typeof setup === 'number') return setup
  const { config, scrubber, log, errors } = setup
  const checksDir = resolveChecksDir(values.checks, io.cwd)
  const checks = await loadChecksOrExplain(checksDir, io, 'start')
  if (typeof checks === 'number') return checks

  let agent: Agent
  let executors: AgentExecutors | undefined
  try {
    executors = await createDefaultExecutors({
      config,
      log,
      scrubber,
      checks,
      heartbeatIngress: true,
      secretValues: setup.secretValues,
      env: io.env,
    })
    agent = await startAgent({
      config,
      log,
      scrubber,
      source: createLocalSource({ checks }),
      executors: executors.table,
      info: { id: await loadOrCreateAgentId(config.dataDir), version: AGENT_VERSION, flavor: config.flavor },
      reportError: (error) => errors.capture(error),
    })
  } catch (error) {
    log.fatal({ err: error }, `the agent could not start: ${(error as Error).message}`)
    errors.capture(error)
    await executors?.close()
    await errors.flush(FLUSH_TIMEOUT_MS)
    log.flush()
    return ExitCode.failed
  }
  log.info(
    { checks: checks.length, checksDir, flavor: config.flavor, version: AGENT_VERSION },
    `agent ready: ${checks.length} check(s) from ${checksDir}`,
  )
  handleSignals(agent, log, errors)
  await agent.stopped
  await executors.close()
  await errors.flush(FLUSH_TIMEOUT_MS)
  log.info('agent stopped')
  log.flush()
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
