// The executors a real agent runs. Probes for uptime checks are always there; the Playwright runner
// is imported only by the full flavor, so the uptime image never loads it (nor needs it installed).

import type { AgentConfig } from '../config/agent-config.ts'
import type { Logger } from '../telemetry/logger.ts'
import type { ExecutorTable } from './executors.ts'

export interface DefaultExecutorDeps {
  config: Readonly<AgentConfig>
  log: Logger
}

export async function createDefaultExecutors(_deps: DefaultExecutorDeps): Promise<ExecutorTable> {
  const table: ExecutorTable = {}
  return table
}
