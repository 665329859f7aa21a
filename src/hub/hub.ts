// One hub process: store, app, listener and the sweep that expires unclaimed jobs.

import path from 'node:path'
import type { FastifyServerOptions } from 'fastify'
import { removeAbandonedUploads } from './abandoned-uploads.ts'
import type { HubConfig } from './config.ts'
import { DatabaseUnavailableError } from './db/errors.ts'
import { buildHubApp } from './http/server.ts'
import { createNotifier } from './notifier.ts'
import { type HubStore, openStore } from './store/store.ts'
import { dispatchDueWebhooks } from './webhooks.ts'

export interface Hub {
  url: string
  port: number
  store: HubStore
  /** One pass of the webhook dispatcher (it also runs on its own timer). */
  runWebhooks(): Promise<number>
  close(): Promise<void>
}

export interface HubOptions {
  config: Readonly<HubConfig>
  logger?: FastifyServerOptions['loggerInstance']
  now?: () => number
  /** How often unclaimed jobs are looked for; default a tenth of the expiry, at most 5 s. */
  sweepIntervalMs?: number
  /** How often deployed checks are looked at for due runs; default 1 s. */
  scheduleIntervalMs?: number
  /** How often queued webhook deliveries are looked at; default 1 s. */
  webhookIntervalMs?: number
  /** Base of the webhook retry backoff; default 5 s. */
  webhookBackoffBaseMs?: number
  /** SQLite: how long a write waits for a lock another process holds before it fails 503; default 5 s. */
  sqliteLockWaitMs?: number
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
      databaseTimeoutMs:
        config.databaseTimeoutSeconds === undefined ? undefined : config.databaseTimeoutSeconds * 1000,
      sqliteLockWaitMs: options.sqliteLockWaitMs,
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
  // The timers meet a database outage every second: one line saying so, not a stack each time.
  const failed = (what: string) => (err: unknown) => {
    if (err instanceof DatabaseUnavailableError)
      app.log.warn({ cause: String(err.cause) }, `${what} failed: ${err.message}`)
    else app.log.error({ err }, `${what} failed`)
  }
  // In the background: a large artifact tree must not hold up the start.
  removeAbandonedUploads({ artifactsDir: path.join(config.dataDir, 'artifacts'), now })
    .then(({ removed, bytes }) => {
      if (removed.length > 0)
        app.log.info(
          { files: removed.length, bytes },
          `removed ${removed.length} artifact upload(s) cut off by an earlier stop (${bytes} bytes)`,
        )
    })
    .catch((err: unknown) => app.log.warn({ err }, 'could not look for abandoned artifact uploads'))
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
      .catch(failed('sweep of unclaimed jobs'))
      // Idempotency-Keys past 24 h, a bounded batch a turn (an expired key is also freed when reused).
      .then(() => store.sweepIdempotencyKeys())
      .catch(failed('cleanup of expired Idempotency-Keys'))
      .finally(() => {
        sweeping = false
      })
  }, interval)
  let scheduling = false
  const scheduler = setInterval(() => {
    if (scheduling) return
    scheduling = true
    store
      .scheduleDue()
      .then((queued) => {
        if (queued > 0) notifier.notify()
      })
      .catch(failed('scheduling deployed checks'))
      .finally(() => {
        scheduling = false
      })
  }, options.scheduleIntervalMs ?? 1000)
  const runWebhooks = () => dispatchDueWebhooks({ store, backoffBaseMs: options.webhookBackoffBaseMs })
  let dispatching = false
  const webhooks = setInterval(() => {
    if (dispatching) return
    dispatching = true
    runWebhooks()
      .catch(failed('webhook dispatch'))
      .finally(() => {
        dispatching = false
      })
  }, options.webhookIntervalMs ?? 1000)
  return {
    url: `http://${host}:${port}`,
    runWebhooks,
    port,
    store,
    async close() {
      clearInterval(timer)
      clearInterval(scheduler)
      clearInterval(webhooks)
      // Long-polls answer at once (no jobs / still running) instead of holding the shutdown up.
      notifier.close()
      await app.close()
      if (options.store === undefined) await store.close()
    },
  }
}
