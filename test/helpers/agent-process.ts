// Starts the real agent (`bin/outpost.mjs`) as a child process, the way an operator does.

import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')

export interface AgentProcess {
  child: ChildProcess
  /** Everything the agent printed so far. */
  output(): string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Resolves when a log line matching the pattern has been printed. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>
}

export function spawnAgent(args: string[], env: Record<string, string>): AgentProcess {
  const child = spawn(process.execPath, [path.join(root, 'bin/outpost.mjs'), ...args], {
    cwd: root,
    // Tests run at once: none may hold the default hub or heartbeat port.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HUB_PORT: '0',
      AGENT_HEARTBEAT_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const listeners = new Set<() => void>()
  const append = (chunk: Buffer): void => {
    output += chunk.toString()
    for (const l of listeners) l()
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  return {
    child,
    output: () => output,
    exited,
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(output)) {
            listeners.delete(check)
            clearTimeout(timer)
            resolve()
          }
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          reject(new Error(`agent did not print ${pattern} within ${timeoutMs} ms; output:\n${output}`))
        }, timeoutMs)
        listeners.add(check)
        check()
        void exited.then(() => {
          if (!pattern.test(output)) {
            clearTimeout(timer)
            reject(new Error(`agent exited before printing ${pattern}; output:\n${output}`))
          }
        })
      })
    },
  }
}
