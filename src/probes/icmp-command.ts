// Runs the system `ping` once. We start the process ourselves instead of through node-ping's probe():
// that one cannot be cancelled (a job timeout or shutdown would leave ping running), passes the whole
// agent environment (secrets included) to the child, merges stderr into the parsed text, hides the exit
// status, and puts the host where a leading "-" is read as an option.

import { execFile } from 'node:child_process'
import type { IpFamily } from '../model/checks.ts'

export interface PingCommandOptions {
  /** Executable name (looked up in PATH) or absolute path. */
  command: string
  host: string
  family: IpFamily
  count: number
  /** Seconds between echo requests; iputils refuses < 0.2 to non-root users. */
  intervalSeconds: number
  /** Seconds to wait for the last replies after the last request was sent. */
  replyTimeoutSeconds: number
  signal: AbortSignal
  /** PATH for the child; the rest of its environment is fixed. */
  path?: string
}

export type PingRun =
  | { kind: 'exited'; exitCode: number; stdout: string; stderr: string }
  | { kind: 'spawn-error'; code: string; message: string }
  | { kind: 'aborted'; stdout: string; stderr: string }

const MAX_OUTPUT_BYTES = 1024 * 1024

export function pingArguments(options: Omit<PingCommandOptions, 'command' | 'signal' | 'path'>): string[] {
  return [
    options.family === 'IPv6' ? '-6' : '-4',
    '-n',
    '-c',
    String(options.count),
    '-i',
    String(options.intervalSeconds),
    '-W',
    String(options.replyTimeoutSeconds),
    // Ends option parsing so a host can never be read as a flag.
    '--',
    options.host,
  ]
}

export function runPing(options: PingCommandOptions): Promise<PingRun> {
  return new Promise((resolve) => {
    execFile(
      options.command,
      pingArguments(options),
      {
        signal: options.signal,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        shell: false,
        windowsHide: true,
        // LANG=C: the output we parse is the untranslated one.
        env: {
          PATH: options.path ?? process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
          LANG: 'C',
          LC_ALL: 'C',
        },
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ kind: 'exited', exitCode: 0, stdout, stderr })
          return
        }
        if (options.signal.aborted) {
          resolve({ kind: 'aborted', stdout, stderr })
          return
        }
        const code = (error as NodeJS.ErrnoException).code
        if (typeof code === 'number') {
          resolve({ kind: 'exited', exitCode: code, stdout, stderr })
          return
        }
        if (typeof code === 'string' && code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          resolve({ kind: 'spawn-error', code, message: error.message })
          return
        }
        // Killed by a signal we did not send, or output beyond the cap: report what we have.
        resolve({ kind: 'exited', exitCode: -1, stdout, stderr: stderr || error.message })
      },
    )
  })
}
