// `outpost agent`: the agent as operators deploy it. With SERVICE_API_URL and API_KEY it takes its
// jobs from the hub and reports there (results spooled on disk while the hub is away); without,
// it runs the local checks standalone and writes results.ndjson.

import { createLocalSource } from '../../agent/local-source.ts'
import { loadChecksOrExplain, parseChecksOption, resolveChecksDir, setUpAgent } from '../agent-setup.ts'
import { type CliIo, ExitCode } from '../io.ts'
import { remoteWiring } from '../remote-wiring.ts'
import { runAgentProcess } from '../run-agent.ts'

export const AGENT_USAGE = `usage: outpost agent [--checks <dir>]

With SERVICE_API_URL and API_KEY set: takes jobs from the hub at SERVICE_API_URL for this agent's
location (AGENT_LOCATION) and reports results there; results wait on disk while the hub is
unreachable. A rejected API key stops the agent (exit 2).

Without SERVICE_API_URL: runs the checks in <dir> (default: ./checks when it exists, else
examples/checks) on their schedules and appends results to $AGENT_DATA_DIR/results.ndjson.

Options:
  --checks <dir>  directory holding **/*.check.ts files (standalone only)
  -h, --help      show this help

Environment: see README.md ("Configuration"). Stops gracefully on SIGTERM or SIGINT.`

export async function agentCommand(args: string[], io: CliIo): Promise<number> {
  const values = parseChecksOption(args, io, 'agent', AGENT_USAGE)
  if (typeof values === 'number') return values
  const setup = await setUpAgent(io, { command: 'agent' })
  if (typeof setup === 'number') return setup
  const hubUrl = setup.config.serviceApiUrl
  if (hubUrl !== undefined) {
    if (values.checks !== undefined) {
      io.stderr(
        'outpost agent: --checks is for standalone agents; with SERVICE_API_URL the hub sends the checks\n',
      )
      return ExitCode.usage
    }
    return runAgentProcess({
      setup,
      io,
      checks: [],
      readyMessage: `agent ready: taking jobs from ${hubUrl} for location ${setup.config.location}`,
      wire: (executors, info, requestStop) =>
        remoteWiring({ setup, executors, info, keepLocalRecord: false, stop: requestStop }),
    })
  }
  const checksDir = resolveChecksDir(values.checks, io.cwd)
  const checks = await loadChecksOrExplain(checksDir, io, 'agent')
  if (typeof checks === 'number') return checks
  return runAgentProcess({
    setup,
    io,
    checks,
    readyMessage: `agent ready: ${checks.length} check(s) from ${checksDir}`,
    wire: async () => ({ source: createLocalSource({ checks }) }),
  })
}
