// The command line: `outpost <command> [options]`. This file only dispatches; each command lives
// in its own file under commands/.

import { type CliIo, type Command, ExitCode } from './io.ts'

interface CommandEntry {
  summary: string
  load(): Promise<Command>
}

// Commands load lazily so `outpost version` never pays for Playwright or the hub.
const COMMANDS: Record<string, CommandEntry> = {
  start: {
    summary: 'everything on this machine: an embedded hub and an agent running ./checks (else the examples)',
    load: async () => (await import('./commands/start.ts')).startCommand,
  },
  agent: {
    summary: 'the agent: jobs from the hub at SERVICE_API_URL, or local checks standalone',
    load: async () => (await import('./commands/agent.ts')).agentCommand,
  },
  hub: {
    summary: 'the hub: public API and agent exchange (SQLite, or PostgreSQL at DATABASE_URL)',
    load: async () => (await import('./commands/hub.ts')).hubCommand,
  },
  deploy: {
    summary: 'push monitors as code to the hub at SERVICE_API_URL',
    load: async () => (await import('./commands/deploy.ts')).deployCommand,
  },
  validate: {
    summary: 'check monitors as code for problems, without running them',
    load: async () => (await import('./commands/validate.ts')).validateCommand,
  },
  test: {
    summary: 'run each check once as a test session and report',
    load: async () => (await import('./commands/test.ts')).testCommand,
  },
  version: {
    summary: "print the agent's version",
    load: async () => (await import('./commands/version.ts')).versionCommand,
  },
}

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length))
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  return `usage: outpost <command> [options]

Commands:
${lines.join('\n')}

Run 'outpost <command> --help' for a command's options.`
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  }
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage()}\n`)
    return name === undefined ? ExitCode.usage : ExitCode.ok
  }
  if (name === '--version' || name === '-v') return main(['version', ...rest], io)
  const entry = COMMANDS[name]
  if (!entry) {
    io.stderr(`outpost: unknown command '${name}'\n${usage()}\n`)
    return ExitCode.usage
  }
  const command = await entry.load()
  return command(rest, io)
}
