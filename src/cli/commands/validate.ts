// `outpost validate [dir]`: load every check file and report every problem, without running anything.

import { existsSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { formatDiagnostic } from '../../constructs/diagnostics.ts'
import { ChecksDirectoryError, type LoadedChecks, loadChecks } from '../../loader/load-checks.ts'
import { ExitCode } from '../io.ts'

/** The part of CliIo this command uses, so tests can call it with less. */
export interface ValidateIo {
  stdout: (s: string) => void
  stderr: (s: string) => void
  cwd: string
}

export const VALIDATE_USAGE = `usage: outpost validate [dir]

Loads the check files in dir (default: ./checks if it exists, else examples/checks), matching
**/*.check.{ts,js,mjs} (or checks.checkMatch in dir/outpost.config.ts), and reports every problem as
  file: logicalId: property: reason
Exit code: 0 all checks valid, 1 problems found, 2 usage error.
`

/** ./checks when the user has one, else this package's examples (the same rule as `outpost start`). */
export function defaultChecksDir(cwd: string): string {
  const local = resolve(cwd, 'checks')
  return existsSync(local) ? local : resolve(import.meta.dirname, '../../../examples/checks')
}

export async function validateCommand(args: string[], io: ValidateIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(VALIDATE_USAGE)
    return ExitCode.ok
  }
  const unknownOption = args.find((a) => a.startsWith('-'))
  if (unknownOption !== undefined) {
    io.stderr(`outpost validate: unknown option ${unknownOption}\n${VALIDATE_USAGE}`)
    return ExitCode.usage
  }
  if (args.length > 1) {
    io.stderr(`outpost validate: expected at most one directory, got ${args.length}\n${VALIDATE_USAGE}`)
    return ExitCode.usage
  }
  const absolute = args[0] === undefined ? defaultChecksDir(io.cwd) : resolve(io.cwd, args[0])
  const dir = args[0] ?? (relative(io.cwd, absolute) || '.')
  let loaded: LoadedChecks
  try {
    loaded = await loadChecks(absolute)
  } catch (error) {
    if (error instanceof ChecksDirectoryError) {
      io.stderr(`outpost validate: ${dir} is not a directory\n`)
      return ExitCode.usage
    }
    throw error
  }
  for (const diagnostic of loaded.diagnostics) io.stdout(`${formatDiagnostic(diagnostic)}\n`)
  if (loaded.files.length === 0) {
    io.stderr(`outpost validate: no check files in ${dir} (looked for ${loaded.checkMatch.join(', ')})\n`)
    return ExitCode.failed
  }
  const fileCount = `${loaded.files.length} file${loaded.files.length === 1 ? '' : 's'}`
  if (loaded.diagnostics.length > 0) {
    const n = loaded.diagnostics.length
    const valid = `${loaded.checks.length} valid check${loaded.checks.length === 1 ? '' : 's'}`
    io.stdout(`${n} problem${n === 1 ? '' : 's'} in ${dir} (${valid} in ${fileCount})\n`)
    return ExitCode.failed
  }
  io.stdout(
    `${loaded.checks.length} check${loaded.checks.length === 1 ? '' : 's'} in ${fileCount} valid (${dir})\n`,
  )
  return ExitCode.ok
}
