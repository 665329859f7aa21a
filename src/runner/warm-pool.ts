// Warm runners: one pre-started Playwright main process per runtime, so a run does not pay for
// loading Playwright. A warm process is started with the same minimal environment a run gets (never
// the agent's), in its own process group, with its marker and secrets file chosen ahead; a run takes
// it, hands it the run's environment, and a fresh one is started only after that run ended, so the
// next one's start-up never competes with a run for CPU.

import type { ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { spawnInGroup } from './process-group.ts'

const WARM_START_PATH = join(dirname(fileURLToPath(import.meta.url)), 'child', 'warm-start.cjs')

/** What a run must reuse from the warm process it takes: they were fixed when it started. */
export interface WarmSlot {
  child: ChildProcess
  markerValue: string
  secretsFile: string
  /** Resolves when the process has loaded Playwright (or ended). */
  ready: Promise<void>
  /** Removes the slot's scratch directory (the secrets file) once the run has read it. */
  dispose(): Promise<void>
  /** Starts the run: its directory, CLI arguments (after cli.js) and whole environment. */
  start(cwd: string, args: string[], env: Record<string, string>): void
}

export interface WarmPoolOptions {
  scratchDir: string
  /** The environment a warm process starts with, given its marker and secrets file. */
  baseEnv: (markerValue: string, secretsFile: string, key: string) => Record<string, string>
}

export interface WarmPool {
  /** A warm process for this key (runtime + CLI path), if one is ready; the caller owns it from then on. */
  take(key: string, cli: string): WarmSlot | undefined
  /** Starts a warm process for the key unless one exists. */
  refill(key: string, cli: string): Promise<void>
  /** Resolves when the idle process for the key (if any) has loaded Playwright. */
  ready(key: string): Promise<void>
  close(): Promise<void>
}

interface Idle {
  slot: WarmSlot
  cli: string
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null && child.pid !== undefined
}

export function createWarmPool(options: WarmPoolOptions): WarmPool {
  const idle = new Map<string, Idle>()
  const starting = new Map<string, Promise<void>>()
  let closed = false
  const spawnSlot = async (key: string, cli: string): Promise<WarmSlot> => {
    const markerValue = randomUUID()
    const dir = join(options.scratchDir, markerValue)
    await mkdir(dir, { recursive: true })
    const secretsFile = join(dir, 'secrets.ndjson')
    const env = options.baseEnv(markerValue, secretsFile, key)
    const child = spawnInGroup(process.execPath, [WARM_START_PATH, cli], dir, env, true)
    const ready = new Promise<void>((resolve) => {
      const fd3 = child.stdio[3]
      if (fd3 && 'on' in fd3) {
        fd3.on('data', () => resolve())
        fd3.on('close', () => resolve())
        fd3.on('error', () => resolve())
      } else resolve()
      child.on('exit', () => resolve())
    })
    // Nothing is read from a warm process until a run takes it; keep its pipes from filling.
    child.stdout?.resume()
    child.stderr?.resume()
    child.on('error', () => {})
    return {
      child,
      markerValue,
      secretsFile,
      ready,
      dispose: () => rm(dir, { recursive: true, force: true }),
      start(cwd, args, runEnv) {
        child.stdin?.end(`${JSON.stringify({ cwd, args, env: runEnv })}\n`)
      },
    }
  }
  return {
    take(key, cli) {
      const found = idle.get(key)
      if (!found) return undefined
      idle.delete(key)
      if (found.cli !== cli || !alive(found.slot.child)) {
        found.slot.child.stdin?.end()
        void found.slot.dispose()
        return undefined
      }
      return found.slot
    },
    refill(key, cli) {
      const pending = starting.get(key)
      if (pending) return pending
      if (closed || idle.has(key)) return Promise.resolve()
      const started = spawnSlot(key, cli)
        .then(async (slot) => {
          if (closed) {
            slot.child.stdin?.end()
            await slot.dispose()
            return
          }
          idle.set(key, { slot, cli })
        })
        .finally(() => starting.delete(key))
      starting.set(key, started)
      return started
    },
    async ready(key) {
      await starting.get(key)?.catch(() => {})
      await idle.get(key)?.slot.ready
    },
    async close() {
      closed = true
      await Promise.allSettled(starting.values())
      for (const { slot } of idle.values()) {
        // Closing stdin makes it exit by itself; the kill is for one stuck in start-up.
        slot.child.stdin?.end()
        if (slot.child.pid !== undefined) {
          try {
            process.kill(-slot.child.pid, 'SIGKILL')
          } catch {}
        }
        await slot.dispose()
      }
      idle.clear()
    },
  }
}
