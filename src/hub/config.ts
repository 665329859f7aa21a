// Hub environment -> typed configuration. Bad values stop start-up with one line naming the
// variable, the value and the rule (exit 2), like the agent's.

import { isIP } from 'node:net'
import path from 'node:path'
import { ConfigError } from '../config/config-error.ts'
import { type Env, intInRange, optionalString, optionalUrl } from '../config/parsers.ts'

export interface HubConfig {
  port: number
  host: string
  /** postgres://...; unset means the embedded SQLite file under dataDir. */
  databaseUrl?: string
  /** PostgreSQL: how long a connection or a statement may take before the request is answered 503 (default 30). */
  databaseTimeoutSeconds?: number
  dataDir: string
  leaseSeconds: number
  jobExpirySeconds: number
  locationTimeoutSeconds: number
  maxArtifactBytes: number
}

export const MAX_ARTIFACT_BYTES = 150 * 1024 * 1024

export function loadHubConfig(env: Env, cwd: string): Readonly<HubConfig> {
  return Object.freeze({
    // 0 asks the OS for a free port (tests); the bound port is printed.
    port: intInRange(env, 'HUB_PORT', 8080, 0, 65535),
    host: hostOf(env),
    databaseUrl: optionalUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseTimeoutSeconds: intInRange(env, 'HUB_DATABASE_TIMEOUT_SECONDS', 30, 1, 3600),
    dataDir: path.resolve(cwd, optionalString(env, 'HUB_DATA_DIR') ?? '.outpost/hub'),
    leaseSeconds: intInRange(env, 'HUB_LEASE_SECONDS', 300, 1, 86400),
    jobExpirySeconds: intInRange(env, 'HUB_JOB_EXPIRY_SECONDS', 360, 1, 86400),
    locationTimeoutSeconds: intInRange(env, 'HUB_LOCATION_TIMEOUT_SECONDS', 600, 1, 86400),
    maxArtifactBytes: MAX_ARTIFACT_BYTES,
  })
}

function hostOf(env: Env): string {
  const host = optionalString(env, 'HUB_HOST') ?? '127.0.0.1'
  const hostname =
    /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/
  if (isIP(host) === 0 && !hostname.test(host)) {
    throw new ConfigError(
      'HUB_HOST',
      host,
      'expected an IP address (127.0.0.1, 0.0.0.0, ::) or a host name (default 127.0.0.1)',
    )
  }
  return host
}
