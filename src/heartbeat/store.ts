// Heartbeat state kept under the agent's data directory, so pings received before a restart still count
// after it. One JSON file, replaced atomically (write a temporary file, fsync, rename): a crash leaves
// either the old or the new file, never half of one. Writes are serialised and coalesced.

import { mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { HeartbeatCheck } from '../model/checks.ts'
import type { Logger } from '../telemetry/logger.ts'
import { applyPing, type HeartbeatState, newHeartbeatState, type PingInput } from './state.ts'

export const HEARTBEAT_STATE_FILE = 'heartbeats.json'
const FORMAT_VERSION = 1

export interface HeartbeatStore {
  /** Makes the ingress accept this check's token (idempotent); state already on disk is kept. */
  register(check: Pick<HeartbeatCheck, 'pingToken' | 'logicalId'>): Promise<HeartbeatState>
  /** Registers exactly these checks; tokens of checks no longer present get 404 (their state stays on disk). */
  setChecks(checks: Pick<HeartbeatCheck, 'pingToken' | 'logicalId'>[]): Promise<void>
  isKnown(token: string): boolean
  get(token: string): HeartbeatState | undefined
  /** Applies a ping to a known token and persists it before resolving; undefined for an unknown token. */
  recordPing(token: string, ping: PingInput): Promise<HeartbeatState | undefined>
  markEvaluated(token: string, at: number): Promise<void>
  /** Resolves once every change so far is on disk. */
  flush(): Promise<void>
}

export interface HeartbeatStoreOptions {
  /** The agent's data directory (AGENT_DATA_DIR); the file lives in its `heartbeats/` folder. */
  dataDir: string
  now?: () => number
  log?: Pick<Logger, 'warn'>
  /**
   * Reads the file once and never writes it: for `outpost test` beside a running agent, which owns the
   * file. Changes then live in memory only.
   */
  readOnly?: boolean
}

interface StoredFile {
  version: number
  states: Record<string, HeartbeatState>
}

export async function openHeartbeatStore(options: HeartbeatStoreOptions): Promise<HeartbeatStore> {
  const now = options.now ?? Date.now
  const dir = join(options.dataDir, 'heartbeats')
  const file = join(dir, HEARTBEAT_STATE_FILE)
  if (!options.readOnly) await mkdir(dir, { recursive: true })
  const states = new Map<string, HeartbeatState>(
    Object.entries(await readStates(file, options.log, options.readOnly === true)),
  )
  const known = new Set<string>()
  let version = 0
  let written = 0
  let chain: Promise<void> = Promise.resolve()

  const writeNow = async (): Promise<void> => {
    if (written >= version || options.readOnly) return
    const target = version
    const body: StoredFile = { version: FORMAT_VERSION, states: Object.fromEntries(states) }
    const temporary = `${file}.${process.pid}.tmp`
    const handle = await open(temporary, 'w', 0o600)
    try {
      await handle.writeFile(JSON.stringify(body))
      await handle.sync()
    } catch (error) {
      // A disk that filled up part-way: the half-written copy would only hold on to the space.
      await handle.close()
      await rm(temporary, { force: true })
      throw error
    }
    await handle.close()
    await rename(temporary, file)
    written = target
  }

  const persist = (): Promise<void> => {
    version += 1
    const run = chain.then(writeNow)
    // A failed write leaves `written` behind, so the next change writes everything again.
    chain = run.catch(() => {})
    return run
  }

  const register: HeartbeatStore['register'] = async (check) => {
    known.add(check.pingToken)
    const existing = states.get(check.pingToken)
    if (existing && existing.checkId === check.logicalId) return existing
    const state = existing
      ? { ...existing, checkId: check.logicalId }
      : newHeartbeatState(check.pingToken, check.logicalId, now())
    states.set(check.pingToken, state)
    await persist()
    return state
  }

  return {
    register,
    async setChecks(checks) {
      known.clear()
      for (const check of checks) await register(check)
    },
    isKnown: (token) => known.has(token),
    get: (token) => states.get(token),
    async recordPing(token, ping) {
      const state = known.has(token) ? states.get(token) : undefined
      if (!state) return undefined
      const next = applyPing(state, ping)
      states.set(token, next)
      try {
        await persist()
      } catch (error) {
        // Not on disk, so not taken: the sender is told to send it again, and must not count twice.
        if (states.get(token) === next) states.set(token, state)
        throw error
      }
      return next
    },
    async markEvaluated(token, at) {
      const state = states.get(token)
      if (!state) return
      states.set(token, { ...state, lastEvaluatedAt: at })
      await persist()
    },
    flush: () => chain,
  }
}

async function readStates(
  file: string,
  log: Pick<Logger, 'warn'> | undefined,
  readOnly: boolean,
): Promise<Record<string, HeartbeatState>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw error
  }
  try {
    const parsed = JSON.parse(text) as Partial<StoredFile>
    if (parsed.version !== FORMAT_VERSION || typeof parsed.states !== 'object' || parsed.states === null) {
      throw new Error(`unknown format (version ${String(parsed.version)}; expected ${FORMAT_VERSION})`)
    }
    return parsed.states
  } catch (error) {
    // Losing heartbeat history beats refusing to start; the bad file is kept for a look.
    const aside = readOnly ? file : `${file}.unreadable-${Date.now()}`
    if (!readOnly) await rename(file, aside)
    log?.warn(
      { file, movedTo: aside, reason: (error as Error).message },
      'heartbeat state unreadable; starting empty',
    )
    return {}
  }
}
