// Environment -> one typed, frozen agent configuration (DESIGN.md §3, "Agent environment").

import path from 'node:path'
import { ConfigError } from './config-error.ts'
import { type Env, intInRange, oneOf, optionalString, optionalUrl } from './parsers.ts'

export const AgentFlavor = ['full', 'uptime'] as const
export type AgentFlavor = (typeof AgentFlavor)[number]
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const
const SWITCH = ['on', 'off', 'true', 'false', '1', '0'] as const

export const SERVICE_SECRET_PREFIX = 'SERVICE_SECRET_'

export interface AgentConfig {
  apiKey?: string
  serviceApiUrl?: string
  accountId?: string
  jobConcurrency: number
  uptimeConcurrency: number
  healthPort: number
  heartbeatPort: number
  /** Host the health and heartbeat servers bind; all interfaces so Kubernetes can probe. */
  listenHost: string
  dataDir: string
  flavor: AgentFlavor
  externalObservability: boolean
  sentryDsn?: string
  /** Names and values of SERVICE_SECRET_* variables; values are secrets. */
  serviceSecrets: ReadonlyArray<{ name: string; value: string }>
  logLevel: (typeof LOG_LEVELS)[number]
  drainTimeoutSeconds: number
  httpsProxy?: string
  httpProxy?: string
  noProxy?: string
  extraCaCerts?: string
  /** Location code put on every result. */
  location: string
  /** The browser Playwright checks drive (Debian's chromium; Playwright's own downloads are never used). */
  chromiumPath: string
}

export function loadAgentConfig(env: Env, cwd: string): Readonly<AgentConfig> {
  const apiKey = optionalString(env, 'API_KEY')
  const serviceApiUrl = optionalUrl(env, 'SERVICE_API_URL')
  if (serviceApiUrl !== undefined && apiKey === undefined) {
    throw new ConfigError(
      'API_KEY',
      '',
      'required when SERVICE_API_URL is set (the hub rejects unauthenticated agents)',
    )
  }
  const observability = oneOf(env, 'EXTERNAL_OBSERVABILITY', 'on', SWITCH)
  const serviceSecrets = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[0].startsWith(SERVICE_SECRET_PREFIX) && !!entry[1])
    .map(([name, value]) => ({ name, value }))
  const config: AgentConfig = {
    apiKey,
    serviceApiUrl,
    accountId: optionalString(env, 'SERVICE_ACCOUNT_ID'),
    jobConcurrency: intInRange(env, 'JOB_CONCURRENCY', 1, 1, 10),
    uptimeConcurrency: intInRange(env, 'UPTIME_CONCURRENCY', 100, 1, 1000),
    // 0 asks the OS for a free port (tests); the bound port is logged.
    healthPort: intInRange(env, 'AGENT_HEALTH_PORT', 8081, 0, 65535),
    heartbeatPort: intInRange(env, 'AGENT_HEARTBEAT_PORT', 8082, 0, 65535),
    listenHost: optionalString(env, 'AGENT_LISTEN_HOST') ?? '0.0.0.0',
    dataDir: path.resolve(cwd, optionalString(env, 'AGENT_DATA_DIR') ?? '.outpost'),
    flavor: oneOf(env, 'AGENT_FLAVOR', 'full', AgentFlavor),
    externalObservability: observability === 'on' || observability === 'true' || observability === '1',
    sentryDsn: optionalUrl(env, 'SENTRY_DSN'),
    serviceSecrets,
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    drainTimeoutSeconds: intInRange(env, 'AGENT_DRAIN_TIMEOUT', 120, 0, 86400),
    httpsProxy: optionalUrl(env, 'HTTPS_PROXY') ?? optionalUrl(env, 'https_proxy'),
    httpProxy: optionalUrl(env, 'HTTP_PROXY') ?? optionalUrl(env, 'http_proxy'),
    noProxy: optionalString(env, 'NO_PROXY') ?? optionalString(env, 'no_proxy'),
    extraCaCerts: optionalString(env, 'NODE_EXTRA_CA_CERTS'),
    location: optionalString(env, 'AGENT_LOCATION') ?? 'private',
    chromiumPath: optionalString(env, 'AGENT_CHROMIUM_PATH') ?? '/usr/bin/chromium',
  }
  return Object.freeze(config)
}
