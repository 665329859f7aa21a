// Results to the hub through an on-disk spool. write() makes the result durable first (a file per
// run, written to a temporary name, fsynced, then renamed), and a single delivery loop posts spooled
// results oldest first, deleting each file only once the hub has acknowledged it. The hub is
// idempotent by run id, so a result posted again after a crash between "acknowledged" and "deleted"
// is counted once: together that is exactly-once delivery across hub outages and agent restarts.
// Artifacts kept on disk are streamed up before their result. A refused API key stops delivery
// (the files stay for the next start, with a corrected key); a result the hub refuses for good is
// moved to spool/rejected/ so it cannot block the rest.

import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { ArtifactRef, CheckResult } from '../../model/result.ts'
import type { Logger } from '../../telemetry/logger.ts'
import type { ResultSink } from '../result-sink.ts'
import { type BackoffPolicy, backoffDelayMs, DEFAULT_BACKOFF, pause } from './backoff.ts'
import { HubRefusedError, HubRejectedKeyError } from './errors.ts'
import type { HubClient } from './hub-client.ts'

export interface SpoolSinkOptions {
  client: HubClient
  /** The agent's data dir; the spool lives in <dataDir>/spool/results. */
  dataDir: string
  log: Logger
  backoff?: BackoffPolicy
  /** Called once when the hub refuses the API key. */
  onRejectedKey?: (error: HubRejectedKeyError) => void
  /** Called with each run id the hub has acknowledged (the source stops renewing its lease). */
  onDelivered?: (runId: string) => void
  /** Results posted at once. */
  concurrency?: number
  /** Artifacts larger than this are not uploaded (the hub's limit, 150 MB). */
  maxArtifactBytes?: number
}

export interface SpoolSink extends ResultSink {
  /** Resolves when the spool is empty, or false after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean>
  /** Files waiting for delivery. */
  pending(): Promise<number>
  /** Stops the delivery loop; spooled files stay for the next start. */
  close(): Promise<void>
}

const MAX_ARTIFACT_BYTES = 150 * 1024 * 1024

/** The run id as it appears in a spool file name: hashed when it is not a plain token. */
function tokenFor(runId: string): string {
  return /^[\w-]{1,100}$/.test(runId) ? runId : createHash('sha256').update(runId).digest('hex')
}

function fileNameFor(result: CheckResult, sequence: number): string {
  // Sortable by spool time.
  return `${Date.now().toString().padStart(15, '0')}-${sequence.toString().padStart(6, '0')}-${tokenFor(result.id)}.json`
}

const SPOOL_FILE = /^\d{15,}-\d{6,}-(.+)\.json$/

/**
 * Which of these run ids have a result waiting in the spool of `dataDir`: a job the hub hands out
 * again after a restart (its lease lapsed while the agent was down) is then delivered, not run twice.
 */
export async function spooledRunIds(dataDir: string, runIds: readonly string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set()
  const names = await readdir(path.join(dataDir, 'spool', 'results')).catch(() => [] as string[])
  const tokens = new Set(names.map((name) => SPOOL_FILE.exec(name)?.[1]).filter((t) => t !== undefined))
  return new Set(runIds.filter((runId) => tokens.has(tokenFor(runId))))
}

/** The result in a spool file, or why it is not one. */
function parseSpooled(text: string): CheckResult | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return (error as Error).message
  }
  if (typeof value !== 'object' || value === null || typeof (value as { id?: unknown }).id !== 'string')
    return 'not an object with a string id'
  return value as CheckResult
}

export async function createSpoolSink(options: SpoolSinkOptions): Promise<SpoolSink> {
  const { client, log } = options
  const backoff = options.backoff ?? DEFAULT_BACKOFF
  const maxArtifactBytes = options.maxArtifactBytes ?? MAX_ARTIFACT_BYTES
  const concurrency = options.concurrency ?? 8
  const dir = path.join(options.dataDir, 'spool', 'results')
  const rejectedDir = path.join(options.dataDir, 'spool', 'rejected')
  await mkdir(dir, { recursive: true })
  await mkdir(rejectedDir, { recursive: true })
  // Leftovers of a write interrupted before its rename (the agent killed mid-write) are incomplete by
  // construction: that result never counted as written, so nothing acknowledged is lost with them.
  const torn = (await readdir(dir)).filter((name) => name.endsWith('.tmp'))
  for (const name of torn) await rm(path.join(dir, name), { force: true })
  if (torn.length > 0) {
    log.warn(
      { spool: dir, files: torn },
      `discarded ${torn.length} incomplete spool write(s) left by an agent stopped mid-write`,
    )
  }

  const stopping = new AbortController()
  let writes: Promise<void> = Promise.resolve()
  let sequence = 0
  let wake: () => void = () => {}
  // Set by every write, so a write that lands while the loop is reading the directory is not missed.
  let dirty = false
  let rejected = false
  let emptied: Array<() => void> = []

  const spoolFiles = async (): Promise<string[]> =>
    (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()

  const uploadArtifacts = async (artifacts: ArtifactRef[], runId: string): Promise<ArtifactRef[]> => {
    const uploaded: ArtifactRef[] = []
    for (const artifact of artifacts) {
      const local = path.isAbsolute(artifact.location)
        ? artifact.location
        : path.join(options.dataDir, artifact.location)
      const info = await stat(local).catch(() => undefined)
      if (artifact.location.startsWith('/v1/') || info === undefined || !info.isFile()) {
        uploaded.push(artifact)
        continue
      }
      if (info.size > maxArtifactBytes) {
        const note = `not uploaded: ${info.size} bytes is over the hub's limit of ${maxArtifactBytes}`
        log.warn({ runId, artifact: artifact.name, size: info.size }, `artifact ${artifact.name} ${note}`)
        uploaded.push({ ...artifact, note })
        continue
      }
      const name = path
        .basename(artifact.name)
        .replace(/[^\w.-]/g, '_')
        .replace(/^[^\w]/, '_')
      try {
        const response = await client.upload(
          `/v1/agent/artifacts/${encodeURIComponent(runId)}/${encodeURIComponent(name)}`,
          createReadStream(local),
          stopping.signal,
        )
        uploaded.push({ ...artifact, location: (response.body as { location: string }).location })
      } catch (error) {
        // The report's size says at once whether a limit or a slow link is the likely cause.
        const facts = { runId, artifact: artifact.name, size: info.size }
        if (!(error instanceof HubRefusedError)) {
          log.warn(
            { ...facts, err: error },
            `upload of ${artifact.name} (${info.size} bytes) failed; retrying`,
          )
          throw error
        }
        log.warn(facts, `the hub refused ${artifact.name} (${info.size} bytes): ${error.message}`)
        uploaded.push({ ...artifact, note: `not uploaded: ${error.message}` })
      }
    }
    return uploaded
  }

  const setAside = async (file: string): Promise<void> => {
    await rename(path.join(dir, file), path.join(rejectedDir, file))
  }

  const deliver = async (file: string): Promise<void> => {
    const full = path.join(dir, file)
    const text = await readFile(full, 'utf8')
    const result = parseSpooled(text)
    if (typeof result === 'string') {
      // Retrying cannot mend it, and left in place it would block every later result.
      log.warn(
        { file, size: text.length, reason: result },
        `spool file ${file} is not a whole result (${result}); moved to ${rejectedDir}`,
      )
      await setAside(file)
      return
    }
    const artifacts = await uploadArtifacts(result.artifacts ?? [], result.id)
    try {
      await client.json('POST', '/v1/agent/results', { ...result, artifacts }, stopping.signal)
    } catch (error) {
      if (!(error instanceof HubRefusedError)) throw error
      log.error(
        { runId: result.id, checkId: result.checkId, status: error.status },
        `the hub refused result ${result.id} for good (${error.message}); kept in ${rejectedDir}`,
      )
      await setAside(file)
      options.onDelivered?.(result.id)
      return
    }
    await rm(full, { force: true })
    options.onDelivered?.(result.id)
  }

  const loop = async (): Promise<void> => {
    let failures = 0
    while (!stopping.signal.aborted && !rejected) {
      dirty = false
      const files = await spoolFiles()
      if (files.length === 0) {
        if (dirty) continue
        for (const resolve of emptied) resolve()
        emptied = []
        await new Promise<void>((resolve) => {
          wake = resolve
          if (stopping.signal.aborted) resolve()
        })
        continue
      }
      try {
        // Oldest first, a few at a time: the hub is idempotent, so order within a batch does not matter.
        for (let i = 0; i < files.length; i += concurrency) {
          if (stopping.signal.aborted) return
          const outcomes = await Promise.allSettled(files.slice(i, i + concurrency).map(deliver))
          const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
          if (failure !== undefined) throw failure.reason
        }
        if (failures > 0)
          log.info({ hub: client.baseUrl }, 'the hub is reachable again; spooled results delivered')
        failures = 0
      } catch (error) {
        if (stopping.signal.aborted) return
        if (error instanceof HubRejectedKeyError) {
          rejected = true
          log.error({ status: error.status }, `result delivery stopped: ${error.message}`)
          options.onRejectedKey?.(error)
          return
        }
        failures += 1
        const delay = backoffDelayMs(failures, backoff)
        const waiting = (await spoolFiles()).length
        log.warn(
          { err: (error as Error).message, spooled: waiting, retryInMs: delay },
          `result delivery failed; ${waiting} result(s) kept in the spool, retrying in ${delay} ms`,
        )
        await pause(delay, stopping.signal)
      }
    }
  }
  /** One result, whole or not at all: written to a side file, synced, then renamed into place. */
  const writeSpoolFile = async (name: string, result: CheckResult): Promise<void> => {
    const tmp = path.join(dir, `${name}.tmp`)
    try {
      const handle = await open(tmp, 'w', 0o600)
      try {
        await handle.writeFile(JSON.stringify(result))
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(tmp, path.join(dir, name))
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => undefined)
      throw error
    }
    dirty = true
    wake()
    // The rename is the commit; syncing the directory makes it survive a power cut too. The result is
    // spooled either way, so a failure here is a warning, not a lost result.
    try {
      const directory = await open(dir, 'r')
      try {
        await directory.sync()
      } finally {
        await directory.close()
      }
    } catch (error) {
      log.warn(
        { err: (error as Error).message },
        'a result was spooled, but the spool directory could not be synced: it may not survive a power cut',
      )
    }
  }

  const running = loop().catch((err: unknown) => log.error({ err }, 'the result spool stopped unexpectedly'))

  return {
    write(result) {
      const name = fileNameFor(result, sequence++)
      const written = writes.then(() => writeSpoolFile(name, result))
      // The next write waits for this one but does not inherit its failure: a disk full for a
      // moment must not refuse every result after it.
      writes = written.catch(() => undefined)
      return written
    },
    async flush() {
      await writes
    },
    async drain(timeoutMs) {
      await writes
      if ((await spoolFiles()).length === 0) return true
      if (rejected) return false
      return Promise.race([
        new Promise<boolean>((resolve) => emptied.push(() => resolve(true))),
        pause(timeoutMs).then(() => false),
      ])
    },
    async pending() {
      return (await spoolFiles()).length
    },
    async close() {
      await writes
      stopping.abort()
      wake()
      await running
    },
  }
}
