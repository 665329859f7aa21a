// `outpost deploy [dir]`: the account's deployed checks on the hub become exactly the checks in dir.
// The hub then schedules each at its privateLocations for the agents there.

import { parseArgs } from 'node:util'
import { createHubClient } from '../../agent/remote/hub-client.ts'
import { deployToHub } from '../../agent/remote/hub-sessions.ts'
import { loadAgentConfig } from '../../config/agent-config.ts'
import { ConfigError } from '../../config/config-error.ts'
import { loadChecksOrExplain, resolveChecksDir } from '../agent-setup.ts'
import { type CliIo, ExitCode } from '../io.ts'

export const DEPLOY_USAGE = `usage: outpost deploy [dir] [--dry-run]

Pushes the checks in dir (default: ./checks when it exists, else examples/checks) to the hub at
SERVICE_API_URL with API_KEY (and SERVICE_ACCOUNT_ID): the account's deployed checks become exactly
these. Checks run at their privateLocations, on the agents whose AGENT_LOCATION matches.

Options:
  --dry-run   validate and list what would be deployed, without calling the hub
  -h, --help  show this help

Exit code: 0 deployed, 1 the hub refused or could not be reached, 2 usage or configuration error.`

export async function deployCommand(args: string[], io: CliIo): Promise<number> {
  let parsed: { values: { help?: boolean; 'dry-run'?: boolean }; positionals: string[] }
  try {
    parsed = parseArgs({
      args,
      options: { help: { type: 'boolean', short: 'h' }, 'dry-run': { type: 'boolean' } },
      allowPositionals: true,
    })
  } catch (error) {
    io.stderr(`outpost deploy: ${(error as Error).message}\n${DEPLOY_USAGE}\n`)
    return ExitCode.usage
  }
  if (parsed.values.help) {
    io.stdout(`${DEPLOY_USAGE}\n`)
    return ExitCode.ok
  }
  if (parsed.positionals.length > 1) {
    io.stderr(`outpost deploy: expected at most one directory\n${DEPLOY_USAGE}\n`)
    return ExitCode.usage
  }
  const dir = resolveChecksDir(parsed.positionals[0], io.cwd)
  const checks = await loadChecksOrExplain(dir, io, 'deploy')
  if (typeof checks === 'number') return checks
  if (parsed.values['dry-run']) {
    for (const c of checks) io.stdout(`${c.type.padEnd(10)} ${c.logicalId} (${c.name})\n`)
    io.stdout(`${checks.length} check(s) would be deployed from ${dir}\n`)
    return ExitCode.ok
  }
  let hubUrl: string | undefined
  let apiKey: string | undefined
  let accountId: string | undefined
  try {
    const config = loadAgentConfig(io.env, io.cwd)
    hubUrl = config.serviceApiUrl
    apiKey = config.apiKey
    accountId = config.accountId
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    io.stderr(`outpost: ${error.message}\n`)
    return ExitCode.usage
  }
  if (hubUrl === undefined || apiKey === undefined) {
    io.stderr('outpost deploy: set SERVICE_API_URL and API_KEY to the hub to deploy to\n')
    return ExitCode.usage
  }
  const client = createHubClient({ baseUrl: hubUrl, apiKey, accountId })
  try {
    const { created, updated, deleted } = await deployToHub(client, checks)
    io.stdout(
      `deployed ${checks.length} check(s) to ${hubUrl}: ${created} created, ${updated} updated, ${deleted} deleted\n`,
    )
    return ExitCode.ok
  } catch (error) {
    io.stderr(`outpost deploy: ${(error as Error).message}\n`)
    return ExitCode.failed
  } finally {
    await client.close()
  }
}
