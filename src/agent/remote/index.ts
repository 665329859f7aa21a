// Remote mode (SERVICE_API_URL + API_KEY): the agent takes its jobs from the hub and reports there.
// The CLI builds these parts and hands source and sink to startAgent.

import type { AgentConfig } from '../../config/agent-config.ts'
import { CheckType, RuntimeId, UPTIME_CHECK_TYPES } from '../../model/checks.ts'
import type { AgentInfo } from '../../model/result.ts'
import { scrubDeep } from '../../secrets/scrub-deep.ts'
import type { Scrubber } from '../../secrets/scrubber.ts'
import type { Logger } from '../../telemetry/logger.ts'
import type { HubRejectedKeyError } from './errors.ts'
import { createHubClient, type HubClient } from './hub-client.ts'
import { createRemoteSource, type RemoteSource } from './remote-source.ts'
import { createSpoolSink, type SpoolSink, spooledRunIds } from './spool-sink.ts'

export { HubRefusedError, HubRejectedKeyError, HubUnavailableError } from './errors.ts'

export interface RemoteParts {
  client: HubClient
  source: RemoteSource
  sink: SpoolSink
  /** After the agent stopped: tries to deliver what is spooled (bounded), then stops. */
  close(deliverTimeoutMs?: number): Promise<void>
}

export interface RemotePartsOptions {
  config: Readonly<AgentConfig>
  log: Logger
  /** What results are scrubbed with; the INVALID_JOB results made here quote what the hub sent. */
  scrubber: Scrubber
  info: AgentInfo
  /** The agent must stop: the hub refused the key (from the source or the sink, whichever saw it first). */
  onRejectedKey: (error: HubRejectedKeyError) => void
  /** What the agent's executors run (supportedTypes(executors, flavor)); default: all the flavor allows. */
  checkTypes?: readonly string[]
  /** Claim wait at the hub; tests shorten it. */
  waitSeconds?: number
  backoff?: { baseMs: number; maxMs: number }
}

export async function createRemoteParts(options: RemotePartsOptions): Promise<RemoteParts> {
  const { config, log, info } = options
  if (config.serviceApiUrl === undefined || config.apiKey === undefined) {
    throw new Error('remote mode needs SERVICE_API_URL and API_KEY')
  }
  const client = createHubClient({
    baseUrl: config.serviceApiUrl,
    apiKey: config.apiKey,
    accountId: config.accountId,
    httpsProxy: config.httpsProxy,
    httpProxy: config.httpProxy,
    noProxy: config.noProxy,
    extraCaCerts: config.extraCaCerts,
  })
  const checkTypes =
    options.checkTypes ?? (config.flavor === 'uptime' ? [...UPTIME_CHECK_TYPES] : Object.values(CheckType))
  const source = createRemoteSource({
    client,
    log,
    agent: {
      id: info.id,
      version: info.version,
      flavor: config.flavor,
      location: config.location,
      checkTypes,
      runtimes: config.flavor === 'uptime' ? [] : [...RuntimeId],
    },
    slots: { light: config.uptimeConcurrency, heavy: config.jobConcurrency },
    waitSeconds: options.waitSeconds,
    backoff: options.backoff,
    onRejectedKey: options.onRejectedKey,
    spooled: (runIds) => spooledRunIds(config.dataDir, runIds),
    // Only called once jobs are claimed, after this function returned: the sink exists by then.
    reportInvalid: (result) => sink.write(scrubDeep(result, options.scrubber)),
  })
  const sink: SpoolSink = await createSpoolSink({
    client,
    dataDir: config.dataDir,
    log,
    backoff: options.backoff,
    onRejectedKey: options.onRejectedKey,
    onDelivered: (runId) => source.delivered(runId),
  })
  return {
    client,
    source,
    sink,
    async close(deliverTimeoutMs = 10_000) {
      const delivered = await sink.drain(deliverTimeoutMs)
      if (!delivered) {
        log.warn(
          { spooled: await sink.pending() },
          'results still spooled at exit; they are delivered on the next start',
        )
      }
      await sink.close()
      await client.close()
    },
  }
}
