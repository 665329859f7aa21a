// What `outpost test --hub` and `outpost deploy` need of the hub, for the CLI to wire in: run checks
// as a check session on the hub's agents and wait for the outcome; push monitors as code.

import type { CheckDefinition } from '../../model/checks.ts'
import type { CheckResult } from '../../model/result.ts'
import { HubUnavailableError } from './errors.ts'
import type { HubClient } from './hub-client.ts'

export type SessionOutcome = 'PASSED' | 'FAILED' | 'DEGRADED' | 'TIMED_OUT' | 'CANCELLED'

export interface HubSessionRun {
  sessionId: string
  outcome: SessionOutcome
  /** One result per check, in the order the checks were given (missing when none arrived). */
  results: Array<CheckResult | undefined>
}

export async function runSessionOnHub(options: {
  client: HubClient
  checks: readonly CheckDefinition[]
  location?: string
  signal?: AbortSignal
  /** Completion calls at most (each waits up to 30 s); the hub expires unclaimed jobs after 6 minutes. */
  maxPolls?: number
}): Promise<HubSessionRun> {
  const { client } = options
  const triggered = await client.json(
    'POST',
    '/v2/check-sessions/trigger',
    { checks: options.checks, ...(options.location ? { location: options.location } : {}) },
    options.signal,
  )
  const { checkSessionId, runIds } = triggered.body as { checkSessionId: string; runIds: string[] }
  let outcome: SessionOutcome | undefined
  for (let poll = 0; outcome === undefined && poll < (options.maxPolls ?? 40); poll += 1) {
    try {
      const response = await client.json(
        'GET',
        `/v2/check-sessions/${checkSessionId}/completion?maxWaitSeconds=30`,
        undefined,
        options.signal,
      )
      outcome = response.body as SessionOutcome
    } catch (error) {
      // 408 (still running) and a hub restarting both mean: ask again.
      if (!(error instanceof HubUnavailableError)) throw error
    }
  }
  if (outcome === undefined) throw new Error(`check session ${checkSessionId} did not finish`)
  const results = await Promise.all(
    options.checks.map(async (check, i) => {
      const page = await client.json(
        'GET',
        `/v1/check-results/${encodeURIComponent(check.logicalId)}?limit=100`,
        undefined,
        options.signal,
      )
      const entries = (page.body as { entries: CheckResult[] }).entries
      return entries.find((r) => r.id === runIds[i]) ?? entries.find((r) => r.sessionId === checkSessionId)
    }),
  )
  return { sessionId: checkSessionId, outcome, results }
}

/** `outpost deploy`: the account's deployed checks become exactly these. */
export async function deployToHub(
  client: HubClient,
  checks: readonly CheckDefinition[],
): Promise<{ created: number; updated: number; deleted: number }> {
  const response = await client.json('PUT', '/v1/checks', { checks })
  return response.body as { created: number; updated: number; deleted: number }
}
