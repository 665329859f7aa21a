// `outpost hub`: the control plane. Public API and agent exchange on HUB_HOST:HUB_PORT, embedded
// SQLite under HUB_DATA_DIR or PostgreSQL at DATABASE_URL. Prints the base URL, the API key and the
// account a new user needs.

import { parseArgs } from 'node:util'
import { ConfigError } from '../../config/config-error.ts'
import { ensureCredentials } from '../../hub/bootstrap.ts'
import { type HubConfig, loadHubConfig } from '../../hub/config.ts'
import { type Hub, startHub } from '../../hub/hub.ts'
import { createScrubber } from '../../secrets/scrubber.ts'
import { createLogger } from '../../telemetry/logger.ts'
import { type CliIo, ExitCode } from '../io.ts'

export const HUB_USAGE = `usage: outpost hub

Serves the public API (/v1, /v2), the agent exchange (/v1/agent) and /openapi.json.
On first start it creates an account and an API key, keeps the key in
$HUB_DATA_DIR/credentials.json (mode 0600) and prints both; later starts print them again.

Environment:
  HUB_PORT      port to listen on (default 8080; 0 picks a free one)
  HUB_HOST      address to bind (default 127.0.0.1; the image uses 0.0.0.0)
  DATABASE_URL  postgres://user@host:port/db to share one PostgreSQL between replicas
                (default: embedded SQLite at $HUB_DATA_DIR/hub.sqlite)
  HUB_DATA_DIR  data directory (default ./.outpost/hub): database, credentials, artifacts
  HUB_LEASE_SECONDS             how long a claimed job is held before it may run elsewhere (300)
  HUB_JOB_EXPIRY_SECONDS        how long a job may wait unclaimed, or past its lapsed lease,
                                before it expires as JOB_EXPIRED (360)
  HUB_LOCATION_TIMEOUT_SECONDS  a location without agents for this long is unavailable (600)
  HUB_DATABASE_TIMEOUT_SECONDS  PostgreSQL: how long a connection or statement may take before
                                a request is answered 503 (30)

Routes without a key: /-/health (liveness), /-/readiness (503 while the database is down).

Options:
  -h, --help  show this help

Stops gracefully on SIGTERM or SIGINT.`

export interface HubCommandHooks {
  /** Called once the hub listens (tests stop it through the returned hub). */
  onStarted?: (hub: Hub) => void
  /** Resolves when the hub should stop; default: SIGTERM or SIGINT. */
  stopSignal?: Promise<void>
}

function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop)
      process.off('SIGINT', stop)
      resolve()
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
}

export async function hubCommand(args: string[], io: CliIo, hooks: HubCommandHooks = {}): Promise<number> {
  let help = false
  try {
    help =
      parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true }).values.help ===
      true
  } catch (error) {
    io.stderr(`outpost hub: ${(error as Error).message}\n${HUB_USAGE}\n`)
    return ExitCode.usage
  }
  if (help) {
    io.stdout(`${HUB_USAGE}\n`)
    return ExitCode.ok
  }
  let config: Readonly<HubConfig>
  try {
    config = loadHubConfig(io.env, io.cwd)
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`outpost: ${error.message}\n`)
      return ExitCode.usage
    }
    throw error
  }
  const secrets = config.databaseUrl ? [config.databaseUrl] : []
  const log = createLogger({ level: 'info', scrubber: createScrubber(secrets), pretty: false })
  let hub: Hub
  try {
    hub = await startHub({ config, logger: log })
  } catch (error) {
    const message = (error as Error).message
    io.stderr(
      `outpost hub: could not start: ${config.databaseUrl ? message.replaceAll(config.databaseUrl, '<DATABASE_URL>') : message}\n`,
    )
    return ExitCode.failed
  }
  const credentials = await ensureCredentials(hub.store, config.dataDir)
  const store = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `SQLite at ${config.dataDir}/hub.sqlite`
  io.stdout(`Outpost hub listening on ${hub.url} (${store})\n`)
  io.stdout(`OpenAPI document: ${hub.url}/openapi.json\n`)
  if (credentials) {
    io.stdout(`API key: ${credentials.apiKey}\n`)
    io.stdout(`Account: ${credentials.accountId}\n`)
    io.stdout(
      `${credentials.created ? 'Created on this first start; kept' : 'Kept'} in ${config.dataDir}/credentials.json (mode 0600)\n`,
    )
    io.stdout(`Try: curl -H "Authorization: Bearer $API_KEY" ${hub.url}/v1/status-pages/incidents\n`)
  } else {
    io.stdout(
      'Accounts exist in this database but this data dir holds no saved API key; use a key you created.\n',
    )
  }
  hooks.onStarted?.(hub)
  await (hooks.stopSignal ?? signalled())
  await hub.close()
  return ExitCode.ok
}
