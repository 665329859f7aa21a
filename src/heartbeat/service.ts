// The heartbeat subsystem put together for the agent: state store under the data dir, the ping ingress,
// the HEARTBEAT probe reading that store, and one log line per heartbeat with its ping URL.

import type { HeartbeatCheck } from '../model/checks.ts'
import type { Probe } from '../model/probe.ts'
import { createHeartbeatProbe } from '../probes/heartbeat.ts'
import type { Scrubber } from '../secrets/scrubber.ts'
import type { Logger } from '../telemetry/logger.ts'
import { type HeartbeatPingUrl, heartbeatPingUrls, ingressBaseUrl } from './ping-url.ts'
import { createHeartbeatServer, type HeartbeatServer } from './server.ts'
import { type HeartbeatStore, openHeartbeatStore } from './store.ts'

export interface HeartbeatServiceOptions {
  dataDir: string
  /** AGENT_HEARTBEAT_PORT; 0 picks a free port (tests). */
  port: number
  host: string
  scrubber: Scrubber
  log: Logger
  /** Heartbeats known at start (local checks); ones that arrive later as hub jobs register on first run. */
  checks: HeartbeatCheck[]
  /**
   * false for `outpost test` beside a running agent: no ingress (the agent owns the port) and a
   * read-only store (the agent owns the file), so the test shows the agent's view without changing it.
   */
  ingress: boolean
  /** How jobs reach the ingress when that is not host:port (a proxy, a Kubernetes Service). */
  publicUrl?: string
  now?: () => number
}

export interface HeartbeatService {
  store: HeartbeatStore
  probe: Probe<HeartbeatCheck>
  /** The bound port, null without ingress. */
  port: number | null
  pingUrls: HeartbeatPingUrl[]
  close(): Promise<void>
}

export async function startHeartbeatService(options: HeartbeatServiceOptions): Promise<HeartbeatService> {
  const { log } = options
  const store = await openHeartbeatStore({
    dataDir: options.dataDir,
    log,
    readOnly: !options.ingress,
    ...(options.now ? { now: options.now } : {}),
  })
  await store.setChecks(options.checks)
  const probe = createHeartbeatProbe({ store, ...(options.now ? { now: options.now } : {}) })
  if (!options.ingress) {
    return { store, probe, port: null, pingUrls: [], close: () => store.flush() }
  }

  const server: HeartbeatServer = createHeartbeatServer({
    store,
    scrubber: options.scrubber,
    log,
    port: options.port,
    host: options.host,
    ...(options.now ? { now: options.now } : {}),
  })
  let port: number
  try {
    port = (await server.listen()).port
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new Error(
      `heartbeat ingress cannot listen on ${options.host}:${options.port} (${code}); set AGENT_HEARTBEAT_PORT to a free port`,
    )
  }
  log.info({ port }, `heartbeat ingress listening on ${options.host}:${port}`)
  const base = ingressBaseUrl({
    host: options.host,
    port,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
  })
  const pingUrls = heartbeatPingUrls(options.checks, base)
  for (const entry of pingUrls) {
    log.info({ checkId: entry.logicalId, url: entry.url }, `heartbeat "${entry.name}": ping ${entry.url}`)
  }
  return {
    store,
    probe,
    port,
    pingUrls,
    async close() {
      // Pings may arrive until the very end of a drain; close the ingress last, then the file.
      await server.close()
      await store.flush()
    },
  }
}
