// One hub process: store, app, listener and the sweep that expires unclaimed jobs.

import type { FastifyServerOptions } from 'fastify'
import type { HubConfig } from './config.ts'
import { buildHubApp } from './http/server.ts'
import { createNotifier } from './notifier.ts'
import { type HubStore, openStore } from './store/store.ts'

export interface Hub {
  url: string
  port: number
  store: HubStore
  close(): Promise<void>
}

export interface HubOptions {
  config: Readonly<HubConfig>
  logger?: FastifyServerOptions['loggerInstance']
  now?: () => number
  /** How often unclaimed jobs are looked for; default a tenth of the expiry, at most 5 s. */
  sweepIntervalMs?: number
  /** Use an already open store (tests that share one); the hub then does not close it. */
  store?: HubStore
}

export async function startHub(options: HubOptions): Promise<Hub> {
  const { config } = options
  const now = options.now ?? Date.now
  const store =
    options.store ??
    (await openStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      now,
      timings: { leaseMs: config.leaseSeconds * 1000, expireAfterMs: config.jobExpirySeconds * 1000 },
    }))
  const notifier = createNotifier()
  const app = await buildHubApp({
    store,
    notifier,
    now,
    dataDir: config.dataDir,
    maxArtifactBytes: config.maxArtifactBytes,
    locationTimeoutMs: config.locationTimeoutSeconds * 1000,
    logger: options.logger,
  })
  await app.listen({ port: config.port, host: config.host })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const interval = options.sweepIntervalMs ?? Math.min(5000, (config.jobExpirySeconds * 1000) / 10)
  let sweeping = false
  const timer = setInterval(() => {
    if (sweeping) return
    sweeping = true
    store
      .sweep()
      .then((expired) => {
        if (expired > 0) notifier.notify()
      })
      .catch((err: unknown) => app.log.error({ err }, 'sweep of unclaimed jobs failed'))
      .finally(() => {
        sweeping = false
      })
  }, interval)
  return {
    url: `http://${host}:${port}`,
    port,
    store,
    async close() {
      clearInterval(timer)
      await app.close()
      if (options.store === undefined) await store.close()
    },
  }
}
