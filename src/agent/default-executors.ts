// The executors a real agent runs, and the resources behind them (the heartbeat ingress). Probes
// for uptime checks are always there; the Playwright runner is imported only by the full flavor, so
// the uptime image never loads it (nor needs it installed).

import path from 'node:path'
import type { AgentConfig } from '../config/agent-config.ts'
import { startHeartbeatService } from '../heartbeat/service.ts'
import type { CheckDefinition, HeartbeatCheck } from '../model/checks.ts'
import type { Probe } from '../model/probe.ts'
import {
  createNetworkDiagnostics,
  type NetworkDiagnostics,
} from '../probes/diagnostics/network-diagnostics.ts'
import { createDnsProbe } from '../probes/dns.ts'
import { createIcmpProbe } from '../probes/icmp.ts'
import { detectIcmpCapability } from '../probes/icmp-capability.ts'
import { createTcpProbe } from '../probes/tcp.ts'
import { createUrlProbe } from '../probes/url.ts'
import type { Scrubber } from '../secrets/scrubber.ts'
import type { Logger } from '../telemetry/logger.ts'
import type { Executor, ExecutorTable } from './executors.ts'

export interface DefaultExecutorDeps {
  config: Readonly<AgentConfig>
  log: Logger
  scrubber: Scrubber
  /** Checks known at start: heartbeats among them get their ping URLs. */
  checks: readonly CheckDefinition[]
  /**
   * Serve heartbeat pings on AGENT_HEARTBEAT_PORT. A test session does not: the agent owns the
   * port and the state, and the session only reads them.
   */
  heartbeatIngress: boolean
  /** The agent's own secret values, which Playwright runs scrub from their output and traces. */
  secretValues: readonly string[]
  /** The agent's environment: a Playwright run keeps only PATH, HOME, proxies and the like from it. */
  env: Readonly<Record<string, string | undefined>>
}

export interface AgentExecutors {
  table: ExecutorTable
  /** Releases what the executors hold (the heartbeat ingress); after the agent stopped. */
  close(): Promise<void>
}

export async function createDefaultExecutors(deps: DefaultExecutorDeps): Promise<AgentExecutors> {
  const { config, log } = deps
  const icmp = await detectIcmpCapability()
  if (icmp.available) log.info({ icmp }, `ICMP available (${icmp.method})`)
  else log.warn({ icmp }, icmp.message)

  const heartbeats = await startHeartbeatService({
    dataDir: config.dataDir,
    port: config.heartbeatPort,
    host: config.listenHost,
    scrubber: deps.scrubber,
    log,
    checks: deps.checks.filter((c): c is HeartbeatCheck => c.type === 'HEARTBEAT'),
    ingress: deps.heartbeatIngress,
  })
  const diagnostics = createNetworkDiagnostics()
  const table: ExecutorTable = {
    URL: executor(createUrlProbe({ diagnostics })),
    DNS: executor(createDnsProbe()),
    TCP: executor(createTcpProbe()),
    ICMP: executor(createIcmpProbe()),
    HEARTBEAT: executor(heartbeats.probe),
  }
  const playwright = config.flavor === 'full' ? await createPlaywrightExecutors(deps, diagnostics) : undefined
  return {
    table: { ...table, ...playwright?.table },
    async close() {
      await playwright?.close()
      await heartbeats.close()
    },
  }
}

/**
 * Loaded only by the full flavor: the uptime image has neither the runtimes nor Chromium, and runs
 * no API checks (their scripts need a runtime).
 */
async function createPlaywrightExecutors(
  deps: DefaultExecutorDeps,
  diagnostics: NetworkDiagnostics,
): Promise<AgentExecutors> {
  const { createPlaywrightRunner } = await import('../runner/index.ts')
  // API checks run their setup and teardown scripts on a runtime too, so they come with the runner.
  const { createApiProbe } = await import('../probes/api.ts')
  const runtimesDir = path.resolve(import.meta.dirname, '../../runtimes')
  const onSecrets = (values: string[]): void =>
    deps.log.debug({ count: values.length }, 'a run assigned secrets; its result was scrubbed of them')
  const runner = createPlaywrightRunner({
    runtimesDir,
    dataDir: deps.config.dataDir,
    secrets: { values: [...deps.secretValues] },
    log: deps.log,
    chromiumPath: deps.config.chromiumPath,
    env: { ...deps.env },
    onSecrets,
  })
  await runner.verifyRuntimes()
  return {
    table: {
      MULTI_STEP: executor(runner.multistep),
      BROWSER: executor(runner.browser),
      PLAYWRIGHT: executor(runner.suite),
      API: executor(
        createApiProbe({
          runtimesDir,
          env: { ...deps.env },
          secretValues: [...deps.secretValues],
          diagnostics,
          onSecrets,
        }),
      ),
    },
    close: () => runner.close(),
  }
}

/** Narrows the table's general executor to a probe of one check type (the table keys guarantee it). */
function executor<C extends CheckDefinition>(probe: Probe<C>): Executor {
  return (check, ctx) => probe(check as C, ctx)
}
