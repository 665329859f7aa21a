// Runs one command in a process group of its own, so a timeout can end the command and everything it
// started (Playwright workers, browsers) at once. Browsers that Playwright starts in their own group
// are found by a marker variable in their environment and ended too.

import { type ChildProcess, spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { trackDescendants } from './descendants.ts'

export interface GroupRunOptions {
  command: string
  args: string[]
  cwd: string
  env: Record<string, string>
  signal: AbortSignal
  /** Between SIGTERM and SIGKILL when the run is stopped. */
  graceMs: number
  /** `KEY=value` present in the environment of every process of this run; used to sweep stragglers. */
  marker: string
  /** Called with each chunk of output, for progress reports. */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void
  /** Characters of combined output kept for the result. */
  keepChars?: number
}

export interface GroupRunResult {
  exitCode: number | null
  exitSignal: NodeJS.Signals | null
  /** True when the signal stopped the run before it ended by itself. */
  aborted: boolean
  /** The last keepChars characters of stdout and stderr, interleaved. */
  output: string
  spawnError?: string
}

function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig)
  } catch {
    // ESRCH: the group is already gone.
  }
}

async function isZombie(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  const close = stat.lastIndexOf(')')
  return close < 0 || stat.charAt(close + 2) === 'Z'
}

/** Live pids whose environment holds the marker (Linux /proc; elsewhere finds nothing). */
export async function pidsWithMarker(marker: string): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[])
  const needle = Buffer.from(`\0${marker}\0`)
  const found: number[] = []
  for (const entry of entries) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined)
    if (!environ) continue
    const padded = Buffer.concat([Buffer.from([0]), environ])
    if (padded.includes(needle) && !(await isZombie(pid))) found.push(pid)
  }
  return found
}

/**
 * Kills every process carrying the marker and waits until none is left alive: a SIGKILL is only
 * delivered when the process is next scheduled, which on a busy machine is not at once. Bounded.
 */
export async function sweepMarked(marker: string): Promise<number> {
  let killed = 0
  for (let round = 0; round < 100; round++) {
    const pids = await pidsWithMarker(marker)
    if (pids.length === 0) break
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL')
        if (round === 0) killed++
      } catch {
        // Already gone.
      }
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return killed
}

/** Starts a command as the leader of a new process group, its output piped to us (and fd 3, if asked). */
export function spawnInGroup(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  withFd3 = false,
): ChildProcess {
  const stdio: 'pipe'[] = withFd3 ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe']
  return spawn(command, args, { cwd, env, detached: true, stdio })
}

export type SuperviseOptions = Pick<
  GroupRunOptions,
  'signal' | 'graceMs' | 'marker' | 'onOutput' | 'keepChars'
>

/** Waits for a group leader to end, stopping its group when the signal aborts; never rejects. */
export function superviseGroup(child: ChildProcess, options: SuperviseOptions): Promise<GroupRunResult> {
  const keep = options.keepChars ?? 64_000
  return new Promise((resolve) => {
    let output = ''
    let aborted = false
    let killTimer: NodeJS.Timeout | undefined
    const onData = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
      const chunk = data.toString('utf8')
      output += chunk
      if (output.length > keep) {
        // Start the kept window at a line boundary so no secret is left cut in half at its start.
        const cutAt = output.length - keep
        const newline = output.indexOf('\n', cutAt)
        output = newline >= 0 ? output.slice(newline + 1) : output.slice(cutAt)
      }
      options.onOutput?.(chunk, stream)
    }
    child.stdout?.on('data', onData('stdout'))
    child.stderr?.on('data', onData('stderr'))
    // Children that left the group and dropped the marker are still found by parentage.
    const descendants = child.pid === undefined ? undefined : trackDescendants(child.pid)
    const stop = () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
      aborted = true
      const pid = child.pid
      // Look once more while every parent is still alive: after the kill, orphans lose their parentage.
      void (descendants?.scan() ?? Promise.resolve()).then(() => {
        if (child.exitCode !== null || child.signalCode !== null) return
        killGroup(pid, 'SIGTERM')
        killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), options.graceMs)
      })
    }
    let closed = false
    const finish = async (code: number | null, sig: NodeJS.Signals | null) => {
      options.signal.removeEventListener('abort', stop)
      clearTimeout(killTimer)
      // Workers may outlive a crashed main process, and browsers live in groups of their own.
      descendants?.stop()
      await descendants?.scan()
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL')
      await descendants?.killAll()
      await sweepMarked(options.marker)
      // Let the pipes drain; bounded, since a straggler could hold them open.
      for (let i = 0; i < 40 && !closed; i++) await new Promise((r) => setTimeout(r, 25))
      resolve({ exitCode: code, exitSignal: sig, aborted, output })
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      void finish(child.exitCode, child.signalCode)
      return
    }
    if (options.signal.aborted) stop()
    else options.signal.addEventListener('abort', stop, { once: true })
    child.on('error', (err) => {
      options.signal.removeEventListener('abort', stop)
      descendants?.stop()
      clearTimeout(killTimer)
      resolve({ exitCode: null, exitSignal: null, aborted, output, spawnError: err.message })
    })
    child.on('close', () => {
      closed = true
    })
    child.on('exit', (code, sig) => void finish(code, sig))
  })
}

export function runInProcessGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const child = spawnInGroup(options.command, options.args, options.cwd, options.env)
  child.stdin?.end()
  return superviseGroup(child, options)
}
