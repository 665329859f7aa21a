import { AGENT_VERSION } from '../../version.ts'
import { type CliIo, ExitCode } from '../io.ts'

export const VERSION_USAGE = `usage: outpost version

Prints the agent's version (the newest release in CHANGELOG.md).`

export async function versionCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${VERSION_USAGE}\n`)
    return ExitCode.ok
  }
  if (args.length > 0) {
    io.stderr(`outpost version: unexpected argument '${args[0]}'\n${VERSION_USAGE}\n`)
    return ExitCode.usage
  }
  io.stdout(`${AGENT_VERSION}\n`)
  return ExitCode.ok
}
