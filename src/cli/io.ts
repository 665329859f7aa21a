/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  env: Readonly<Record<string, string | undefined>>
  cwd: string
}

export type Command = (args: string[], io: CliIo) => Promise<number>

/** Exit codes shared by every command. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const
