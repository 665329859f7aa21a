// `outpost test --hub`: the session runs on the hub's agents at a private location, and this command
// only triggers it, waits for its outcome and fetches the results.

import { createHubClient } from '../agent/remote/hub-client.ts'
import { runSessionOnHub } from '../agent/remote/hub-sessions.ts'
import type { AgentConfig } from '../config/agent-config.ts'
import type { CheckDefinition } from '../model/checks.ts'
import type { CheckResult } from '../model/result.ts'

export interface HubSessionResults {
  outcome: string
  results: CheckResult[]
}

/** The results in the checks' order, or a message: "set ..." for a usage error, else a failure. */
export async function runTestSessionOnHub(options: {
  config: Readonly<AgentConfig>
  checks: readonly CheckDefinition[]
  location?: string
}): Promise<HubSessionResults | string> {
  const { config, checks } = options
  if (config.serviceApiUrl === undefined || config.apiKey === undefined) {
    return 'set SERVICE_API_URL and API_KEY to the hub whose agents run the session'
  }
  const client = createHubClient({
    baseUrl: config.serviceApiUrl,
    apiKey: config.apiKey,
    accountId: config.accountId,
  })
  try {
    const run = await runSessionOnHub({ client, checks, location: options.location ?? config.location })
    const results = run.results.map(
      (result, i) => result ?? missingResult(checks[i]!, run.sessionId, run.outcome),
    )
    return { outcome: run.outcome, results }
  } catch (error) {
    return `the session on ${config.serviceApiUrl} failed: ${(error as Error).message}`
  } finally {
    await client.close()
  }
}

/** A check the session ended without a result for (no agent took it, or it was cancelled). */
function missingResult(check: CheckDefinition, sessionId: string, outcome: string): CheckResult {
  return {
    id: `${sessionId}:${check.logicalId}`,
    checkId: check.logicalId,
    checkType: check.type,
    name: check.name,
    status: 'failed',
    startedAt: new Date().toISOString(),
    durationMs: 0,
    location: 'hub',
    attempt: 1,
    sessionId,
    error: {
      code: 'NO_RESULT',
      message: `the session ended ${outcome} without a result for this check (is an agent running at its location?)`,
    },
    assertions: [],
    artifacts: [],
    agent: { id: 'none', version: 'none', flavor: 'full' },
  }
}
