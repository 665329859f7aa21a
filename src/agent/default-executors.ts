// The executors a real agent runs. Probes for uptime checks are always there; the Playwright runner
// is imported only by the full flavor, so the uptime image never loads it (nor needs it installed).

import type { AgentConfig } from '../config/agent-config.ts'
import type { CheckDefinition } from '../model/checks.ts'
import type { Probe } from '../model/probe.ts'
import { createNetworkDiagnostics } from '../probes/diagnostics/network-diagnostics.ts'
import { createIcmpProbe } from '../probes/icmp.ts'
import { detectIcmpCapability } from '../probes/icmp-capability.ts'
import { createUrlProbe } from '../probes/url.ts'
import type { Logger } from '../telemetry/logger.ts'
import type { Executor, ExecutorTable } from './executors.ts'

export interface DefaultExecutorDeps {
  config: Readonly<AgentConfig>
  log: Logger
}

export async function createDefaultExecutors(deps: DefaultExecutorDeps): Promise<ExecutorTable> {
  const icmp = await detectIcmpCapability()
  if (icmp.available) deps.log.info({ icmp }, `ICMP available (${icmp.method})`)
  else deps.log.warn({ icmp }, icmp.message)

  const diagnostics = createNetworkDiagnostics()
  return {
    URL: executor(createUrlProbe({ diagnostics })),
    ICMP: executor(createIcmpProbe()),
  }
}

/** Narrows the table's general executor to a probe of one check type (the table keys guarantee it). */
function executor<C extends CheckDefinition>(probe: Probe<C>): Executor {
  return (check, ctx) => probe(check as C, ctx)
}
