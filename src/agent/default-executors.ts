// The executors a real agent runs, and the resources behind them (the heartbeat ingress). Probes
// for uptime checks are always there; the Playwright runner is imported only by the full flavor, so
// the uptime image never loads it (nor needs it installed).

import type { AgentConfig } from '../config/agent-config.ts'
import { startHeartbeatService } from '../heartbeat/service.ts'
import type { CheckDefinition, HeartbeatCheck } from '../model/checks.ts'
import type { Probe } from '../model/probe.ts'
import { createNetworkDiagnostics } from '../probes/diagnostics/network-diagnostics.ts'
import { createIcmpProbe } from '../probes/icmp.ts'
import { detectIcmpCapability } from '../probes/icmp-capability.ts'
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
  return {
    table: {
      URL: executor(createUrlProbe({ diagnostics })),
      ICMP: executor(createIcmpProbe()),
      HEARTBEAT: executor(heartbeats.probe),
    },
    close: () => heartbeats.close(),
  }
}

/** Narrows the table's general executor to a probe of one check type (the table keys guarantee it). */
function executor<C extends CheckDefinition>(probe: Probe<C>): Executor {
  return (check, ctx) => probe(check as C, ctx)
}
