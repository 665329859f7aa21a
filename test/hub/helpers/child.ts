// A child process running one of the test fixtures (a hub, a remote agent), with its output kept.

import { type ChildProcess, spawn } from 'node:child_process'

export interface Child {
  child: ChildProcess
  output(): string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Resolves with the first match of the pattern in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>
  kill(signal?: NodeJS.Signals): Promise<void>
}

export function spawnScript(script: string, env: Record<string, string>, cwd: string): Child {
  const child = spawn(process.execPath, [script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const listeners = new Set<() => void>()
  const append = (chunk: Buffer): void => {
    output += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  let done = false
  void exited.then(() => {
    done = true
    for (const listener of listeners) listener()
  })
  return {
    child,
    output: () => output,
    exited,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(output)
          if (match !== null) {
            listeners.delete(check)
            resolve(match)
          } else if (done) {
            listeners.delete(check)
            reject(new Error(`${script} exited before printing ${pattern}; output:\n${output}`))
          }
        }
        listeners.add(check)
        check()
      })
    },
    async kill(signal = 'SIGTERM') {
      if (!done) child.kill(signal)
      await exited
    },
  }
}
