// `outpost start` (`npm start`): everything on one machine. An embedded hub (SQLite) and one agent
// that runs the local checks on their schedules and also takes the hub's jobs (test sessions,
// deployed checks); every result goes to results.ndjson and to the hub.

import { createLocalSource } from '../../agent/local-source.ts'
import { loadAgentConfig } from '../../config/agent-config.ts'
import { ConfigError } from '../../config/config-error.ts'
import { intInRange } from '../../config/parsers.ts'
import { type EmbeddedHub, startEmbeddedHub } from '../../hub/embedded.ts'
import { loadChecksOrExplain, parseChecksOption, resolveChecksDir, setUpAgent } from '../agent-setup.ts'
import { type CliIo, ExitCode } from '../io.ts'
import { remoteWiring } from '../remote-wiring.ts'
import { runAgentProcess } from '../run-agent.ts'

export const START_USAGE = `usage: outpost start [--checks <dir>]

Runs everything on this machine: an embedded hub (SQLite under $AGENT_DATA_DIR/hub, on
127.0.0.1:$HUB_PORT, default 8080) and one agent. The agent runs the checks in <dir> (default:
./checks when it exists, else examples/checks) on their schedules, and the hub's jobs (test
sessions, deployed checks). Results go to $AGENT_DATA_DIR/results.ndjson (default ./.outpost) and
to the hub. Prints the hub's URL, API key and account.

Options:
  --checks <dir>  directory holding **/*.check.ts files
  -h, --help      show this help

Environment: see README.md ("Configuration"). Stops gracefully on SIGTERM or SIGINT.`

export async function startCommand(args: string[], io: CliIo): Promise<number> {
  const values = parseChecksOption(args, io, 'start', START_USAGE)
  if (typeof values === 'number') return values
  let dataDir: string
  let hubPort: number
  try {
    dataDir = loadAgentConfig(io.env, io.cwd).dataDir
    hubPort = intInRange(io.env, 'HUB_PORT', 8080, 0, 65535)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    io.stderr(`outpost: ${error.message}\n`)
    return ExitCode.usage
  }
  const checksDir = resolveChecksDir(values.checks, io.cwd)
  const checks = await loadChecksOrExplain(checksDir, io, 'start')
  if (typeof checks === 'number') return checks

  let hub: EmbeddedHub
  try {
    hub = await startEmbeddedHub({ dataDir: `${dataDir}/hub`, port: hubPort })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason =
      code === 'EADDRINUSE' ? `port ${hubPort} is in use (set HUB_PORT)` : (error as Error).message
    io.stderr(`outpost start: the embedded hub could not start: ${reason}\n`)
    return ExitCode.failed
  }
  try {
    // The agent reaches its hub like any remote agent; the hub's key is then one of its secrets.
    const setup = await setUpAgent(io, {
      command: 'start',
      overrides: { SERVICE_API_URL: hub.url, API_KEY: hub.apiKey, SERVICE_ACCOUNT_ID: hub.accountId },
    })
    if (typeof setup === 'number') return setup
    io.stdout(`${hub.banner}\n`)
    return await runAgentProcess({
      setup,
      io,
      checks,
      readyMessage: `agent ready: ${checks.length} check(s) from ${checksDir}, and jobs from the hub at ${hub.url}`,
      wire: (executors, info, requestStop) =>
        remoteWiring({
          setup,
          executors,
          info,
          local: createLocalSource({ checks }),
          keepLocalRecord: true,
          stop: requestStop,
        }),
    })
  } finally {
    await hub.hub.close()
  }
}
