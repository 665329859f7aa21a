// Runs a system tool (traceroute, tcpdump) as a child process, bounded in time and in output, and
// never throws: a missing binary or a refused capability comes back as data for a note.

import { spawn } from 'node:child_process'

export interface ToolRun {
  /** null when the tool could not start or was killed. */
  exitCode: number | null
  stdout: Buffer
  stderr: string
  /** The binary was not found on PATH. */
  notFound: boolean
  /** Killed at the time limit or because the signal (the diagnostics budget, the job) aborted. */
  timedOut: boolean
  /** Set when the process could not be spawned for another reason. */
  spawnError?: string
}

export interface RunToolOptions {
  timeoutMs: number
  signal: AbortSignal
  /** Bytes of stdout kept; more is dropped. */
  maxStdoutBytes: number
  /** Called with each stderr chunk as it arrives (tcpdump says when it is listening there). */
  onStderr?: (text: string) => void
}

const MAX_STDERR_CHARS = 16 * 1024

export interface RunningTool {
  done: Promise<ToolRun>
  /** Asks the tool to finish (SIGINT: tcpdump then writes its summary). */
  interrupt(): void
}

export function startTool(command: string, args: readonly string[], options: RunToolOptions): RunningTool {
  const stdout: Buffer[] = []
  let stdoutBytes = 0
  let stderr = ''
  let timedOut = false
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  const timer = setTimeout(() => {
    timedOut = true
    kill()
  }, options.timeoutMs)
  const onAbort = (): void => {
    timedOut = true
    kill()
  }
  options.signal.addEventListener('abort', onAbort, { once: true })
  child.stdout.on('data', (chunk: Buffer) => {
    const room = options.maxStdoutBytes - stdoutBytes
    if (room <= 0) return
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room)
    stdout.push(kept)
    stdoutBytes += kept.length
  })
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (text: string) => {
    if (stderr.length < MAX_STDERR_CHARS) stderr += text.slice(0, MAX_STDERR_CHARS - stderr.length)
    options.onStderr?.(text)
  })
  const done = new Promise<ToolRun>((resolve) => {
    const finish = (run: Omit<ToolRun, 'stdout' | 'stderr' | 'timedOut'>): void => {
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      resolve({ ...run, stdout: Buffer.concat(stdout, stdoutBytes), stderr, timedOut })
    }
    child.once('error', (err: NodeJS.ErrnoException) => {
      finish({ exitCode: null, notFound: err.code === 'ENOENT', spawnError: err.message })
    })
    child.once('close', (code) => finish({ exitCode: code, notFound: false }))
  })
  return {
    done,
    interrupt: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT')
    },
  }
}

export function runTool(command: string, args: readonly string[], options: RunToolOptions): Promise<ToolRun> {
  return startTool(command, args, options).done
}
