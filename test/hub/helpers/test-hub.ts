// A real hub on loopback for tests, with a clock the test can move forward (leases, expiry) and an
// HTTP helper that speaks to it like any client.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type HubConfig, MAX_ARTIFACT_BYTES } from '../../../src/hub/config.ts'
import { type Hub, startHub } from '../../../src/hub/hub.ts'

export interface TestClock {
  now(): number
  advance(ms: number): void
}

export function createTestClock(): TestClock {
  let offset = 0
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      offset += ms
    },
  }
}

export interface ApiOptions {
  method?: string
  key?: string | null
  account?: string
  body?: unknown
  /** Extra request headers. */
  headers?: Record<string, string>
}

export interface ApiResponse {
  status: number
  body: unknown
  text: string
  headers: Headers
}

export interface TestHub {
  hub: Hub
  url: string
  clock: TestClock
  dataDir: string
  key: string
  accountId: string
  api(pathname: string, options?: ApiOptions): Promise<ApiResponse>
  close(): Promise<void>
}

/** The hub's defaults on loopback, any port, for a hub a test starts itself (restarts, clocks). */
export function testHubConfig(dataDir: string, overrides: Partial<HubConfig> = {}): HubConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    leaseSeconds: 300,
    jobExpirySeconds: 360,
    locationTimeoutSeconds: 600,
    maxArtifactBytes: MAX_ARTIFACT_BYTES,
    ...overrides,
  }
}

export async function startTestHub(
  options: {
    databaseUrl?: string
    config?: Partial<HubConfig>
    dataDir?: string
    /** SQLite: how long a write waits out another process's lock before it is answered 503. */
    sqliteLockWaitMs?: number
  } = {},
): Promise<TestHub> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'outpost-hub-')))
  const clock = createTestClock()
  const config: HubConfig = {
    ...testHubConfig(dataDir, { databaseUrl: options.databaseUrl }),
    ...options.config,
  }
  // Sweeps, scheduling and webhook dispatch are run by the tests themselves, so they happen exactly when a test says.
  const hub = await startHub({
    config,
    now: clock.now,
    sweepIntervalMs: 3_600_000,
    scheduleIntervalMs: 3_600_000,
    webhookIntervalMs: 3_600_000,
    webhookBackoffBaseMs: 1000,
    sqliteLockWaitMs: options.sqliteLockWaitMs,
  })
  const account = await hub.store.createAccount('test')
  const { key } = await hub.store.createApiKey(account.id, 'test')
  const url = hub.url
  const api = async (pathname: string, o: ApiOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...o.headers }
    const useKey = o.key === undefined ? key : o.key
    if (useKey !== null) headers.authorization = `Bearer ${useKey}`
    if (o.account !== undefined) headers['x-service-account'] = o.account
    if (o.body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${url}${pathname}`, {
      method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    })
    const text = await response.text()
    let body: unknown = text
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      // not JSON: the text is the body
    }
    return { status: response.status, body, text, headers: response.headers }
  }
  return {
    hub,
    url,
    clock,
    dataDir,
    key,
    accountId: account.id,
    api,
    async close() {
      await hub.close()
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true })
    },
  }
}
