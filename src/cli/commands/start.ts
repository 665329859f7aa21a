// `outpost start`: the agent on local checks (monitors as code), writing results.ndjson.

import { existsSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { type Agent, startAgent } from '../../agent/agent.ts'
import { loadOrCreateAgentId } from '../../agent/agent-id.ts'
import { createDefaultExecutors } from '../../agent/default-executors.ts'
import { createLocalSource } from '../../agent/local-source.ts'
import { type AgentConfig, knownSecrets, loadAgentConfig } from '../../config/agent-config.ts'
import { ConfigError } from '../../config/config-error.ts'
import { formatDiagnostic } from '../../constructs/diagnostics.ts'
import { loadChecks } from '../../loader/load-checks.ts'
import type { CheckDefinition } from '../../model/checks.ts'
import { createScrubber } from '../../secrets/scrubber.ts'
import { createLogger, type Logger } from '../../telemetry/logger.ts'
import { AGENT_VERSION } from '../../version.ts'
import { type CliIo, ExitCode } from '../io.ts'

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

  let config: Readonly<AgentConfig>
  try {
    config = loadAgentConfig(io.env, io.cwd)
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`outpost: ${error.message}\n`)
      return ExitCode.usage
    }
    throw error
  }
  const scrubber = createScrubber(knownSecrets(config))
  const log = createLogger({ level: config.logLevel, scrubber })
  const checksDir = resolveChecksDir(values.checks, io.cwd)
  if (!existsSync(checksDir)) {
    io.stderr(`outpost start: checks directory ${checksDir} does not exist (pass --checks <dir>)\n`)
    return ExitCode.usage
  }
  const checks = await loadLocalChecks(checksDir, io, log)
  if (checks === undefined) return ExitCode.usage

  const agent = await startAgent({
    config,
    log,
    scrubber,
    source: createLocalSource({ checks }),
    executors: await createDefaultExecutors({ config, log }),
    info: { id: await loadOrCreateAgentId(config.dataDir), version: AGENT_VERSION, flavor: config.flavor },
  })
  log.info(
    { checks: checks.length, checksDir, flavor: config.flavor, version: AGENT_VERSION },
    `agent ready: ${checks.length} check(s) from ${checksDir}`,
  )
  handleSignals(agent, log)
  await agent.stopped
  log.info('agent stopped')
  log.flush()
  return ExitCode.ok
}

function resolveChecksDir(option: string | undefined, cwd: string): string {
  if (option) return path.resolve(cwd, option)
  const local = path.resolve(cwd, 'checks')
  return existsSync(local) ? local : path.resolve(import.meta.dirname, '../../../examples/checks')
}

async function loadLocalChecks(dir: string, io: CliIo, log: Logger): Promise<CheckDefinition[] | undefined> {
  const loaded = await loadChecks(dir)
  if (loaded.diagnostics.length > 0) {
    // A daemon that silently skipped a broken check would leave a gap nobody notices: refuse to start.
    for (const d of loaded.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`)
    io.stderr(
      `outpost start: ${loaded.diagnostics.length} problem(s) in the checks in ${dir}; fix them (see 'outpost validate') and start again\n`,
    )
    return undefined
  }
  log.debug({ files: loaded.files, configFile: loaded.configFile }, 'checks loaded')
  return loaded.checks
}

/** First SIGTERM/SIGINT drains; a second one abandons the drain and exits after flushing. */
function handleSignals(agent: Agent, log: Logger): void {
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
    process.exitCode = 1
    agent.stopNow()
    void agent.stopped.finally(() => {
      log.flush()
      process.exit(1)
    })
  }
  process.on('uncaughtException', (error) => onFatal(error, 'uncaught exception'))
  process.on('unhandledRejection', (reason) => onFatal(reason, 'unhandled promise rejection'))
}
