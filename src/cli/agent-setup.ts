// What `start` and `test` share: configuration (exit 2 on a bad value), the scrubber, the logger,
// and loading monitors as code (exit 2 on any diagnostic).

import { existsSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pino from 'pino'
import { type AgentConfig, loadAgentConfig, SERVICE_SECRET_PREFIX } from '../config/agent-config.ts'
import { ConfigError } from '../config/config-error.ts'
import { formatDiagnostic } from '../constructs/diagnostics.ts'
import { ChecksDirectoryError, loadChecks } from '../loader/load-checks.ts'
import type { CheckDefinition } from '../model/checks.ts'
import { blankEnvironSecrets } from '../secrets/environ-blanking.ts'
import { type SecretWarning, scrubbableValues, secretsFromEnv } from '../secrets/named-secrets.ts'
import { createScrubber, type SecretScrubber } from '../secrets/scrubber.ts'
import { createErrorReporter, type ErrorReporter } from '../telemetry/error-reporting.ts'
import { createLogger, type Logger, type LogLevel } from '../telemetry/logger.ts'
import { AGENT_VERSION } from '../version.ts'
import { type CliIo, ExitCode } from './io.ts'

export interface AgentSetup {
  config: Readonly<AgentConfig>
  scrubber: SecretScrubber
  /** The agent's own secret values (API_KEY, SERVICE_SECRET_*), for runners that scrub child output. */
  secretValues: string[]
  log: Logger
  errors: ErrorReporter
}

export async function setUpAgent(
  io: CliIo,
  options: {
    command: string
    toStderr?: boolean
    defaultLevel?: LogLevel
    overrides?: Record<string, string>
  },
): Promise<AgentSetup | number> {
  let config: Readonly<AgentConfig>
  try {
    config = loadAgentConfig({ ...io.env, ...options.overrides }, io.cwd)
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`outpost: ${error.message}\n`)
      return ExitCode.usage
    }
    throw error
  }
  const warnings: SecretWarning[] = []
  const secretValues = scrubbableValues(secretsFromEnv({ ...io.env, ...options.overrides }), (w) =>
    warnings.push(w),
  )
  const scrubber = createScrubber(secretValues)
  const level = io.env.LOG_LEVEL ? config.logLevel : (options.defaultLevel ?? config.logLevel)
  const log = createLogger({
    level,
    scrubber,
    // Reporters own stdout in a test session; logs then go to stderr.
    ...(options.toStderr ? { destination: pino.destination({ fd: 2, sync: true }), pretty: false } : {}),
  })
  for (const warning of warnings) log.warn({ variable: warning.name }, warning.message)
  if (io.env === process.env) hideSecretsFromProc(log)
  const errors = await createErrorReporter({
    externalObservability: config.externalObservability,
    dsn: config.sentryDsn,
    version: AGENT_VERSION,
    scrubber,
    log,
  })
  return { config, scrubber, secretValues, log, errors }
}

/**
 * Check scripts run as the agent's user and could read /proc/<agent pid>/environ or `ps e`: the
 * values of API_KEY and SERVICE_SECRET_* are blanked there once configuration has read them.
 */
function hideSecretsFromProc(log: Logger): void {
  if (process.platform !== 'linux') return
  try {
    blankEnvironSecrets({
      names: (name) => name === 'API_KEY' || name.startsWith(SERVICE_SECRET_PREFIX),
      // Nothing reads API_KEY after configuration; SERVICE_SECRET_* stay for API checks' {{variables}}.
      remove: (name) => name === 'API_KEY',
    })
  } catch (error) {
    log.warn(
      { reason: (error as Error).message },
      'could not blank secrets in /proc/self/environ; check scripts of this user may read them there',
    )
  }
}

/** ./checks when the user has one, else the bundled examples. */
export function resolveChecksDir(option: string | undefined, cwd: string): string {
  if (option) return path.resolve(cwd, option)
  const local = path.resolve(cwd, 'checks')
  return existsSync(local) ? local : path.resolve(import.meta.dirname, '../../examples/checks')
}

export async function loadChecksOrExplain(
  dir: string,
  io: CliIo,
  command: string,
): Promise<CheckDefinition[] | number> {
  let loaded: Awaited<ReturnType<typeof loadChecks>>
  try {
    loaded = await loadChecks(dir)
  } catch (error) {
    if (!(error instanceof ChecksDirectoryError)) throw error
    io.stderr(`outpost ${command}: checks directory ${dir} does not exist or is not a directory\n`)
    return ExitCode.usage
  }
  if (loaded.diagnostics.length > 0) {
    // Running around a broken check would leave a gap nobody notices: refuse, and say what to fix.
    for (const d of loaded.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`)
    io.stderr(
      `outpost ${command}: ${loaded.diagnostics.length} problem(s) in the checks in ${dir}; fix them (see 'outpost validate') and try again\n`,
    )
    return ExitCode.usage
  }
  return loaded.checks
}

/**
 * The options `start` and `agent` share: `--checks <dir>` and `--help`. Returns the checks option,
 * or the exit code when the command is over (help shown, or a usage error explained).
 */
export function parseChecksOption(
  args: string[],
  io: CliIo,
  command: string,
  usage: string,
): { checks?: string } | number {
  let values: { checks?: string; help?: boolean }
  try {
    values = parseArgs({
      args,
      options: { checks: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    io.stderr(`outpost ${command}: ${(error as Error).message}\n${usage}\n`)
    return ExitCode.usage
  }
  if (values.help) {
    io.stdout(`${usage}\n`)
    return ExitCode.ok
  }
  return { checks: values.checks }
}
