// The hub inside `npm start`: SQLite under the data dir, credentials created on first start, and the
// lines a new user needs. The caller (the CLI's start command) points the agent at `url` with `apiKey`.

import { ensureCredentials } from './bootstrap.ts'
import { type HubConfig, MAX_ARTIFACT_BYTES } from './config.ts'
import { type Hub, startHub } from './hub.ts'

export interface EmbeddedHub {
  hub: Hub
  url: string
  apiKey: string
  accountId: string
  /** What to print: base URL, `API key: ...`, `Account: ...`, the OpenAPI document. */
  banner: string
}

export async function startEmbeddedHub(options: {
  dataDir: string
  port?: number
  host?: string
}): Promise<EmbeddedHub> {
  const config: HubConfig = {
    port: options.port ?? 8080,
    host: options.host ?? '127.0.0.1',
    dataDir: options.dataDir,
    leaseSeconds: 300,
    jobExpirySeconds: 360,
    locationTimeoutSeconds: 600,
    maxArtifactBytes: MAX_ARTIFACT_BYTES,
  }
  const hub = await startHub({ config })
  const credentials = await ensureCredentials(hub.store, options.dataDir)
  if (credentials === undefined) {
    await hub.close()
    throw new Error(
      `the hub database in ${options.dataDir} has accounts but no saved credentials.json; remove the directory to start afresh`,
    )
  }
  const banner = [
    `Hub: ${hub.url} (OpenAPI: ${hub.url}/openapi.json)`,
    `API key: ${credentials.apiKey}`,
    `Account: ${credentials.accountId}`,
    `Try: curl -H "Authorization: Bearer <API key>" ${hub.url}/v1/status-pages/incidents`,
  ].join('\n')
  return { hub, url: hub.url, apiKey: credentials.apiKey, accountId: credentials.accountId, banner }
}
