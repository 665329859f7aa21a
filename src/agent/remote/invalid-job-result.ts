// The failed result a broken job is answered with. Reported through the normal result path, it
// finishes the run at the hub: its session completes, and the job does not pass from agent to agent
// until it expires. Only what the hub sent usably is repeated; the rest has neutral stand-ins the
// hub accepts (checkResultSchema).

import type { CheckType } from '../../model/checks.ts'
import type { AgentInfo, CheckResult } from '../../model/result.ts'
import type { InvalidClaimedJob } from './claimed-job.ts'

export const INVALID_JOB = 'INVALID_JOB'
/** Stand-ins for a check id and type the job did not give usably. */
const UNKNOWN_CHECK_ID = 'invalid-job'
const UNKNOWN_TYPE = 'UNKNOWN'

/** One line: the first problems, and how many more there are. */
export function invalidJobMessage(problems: readonly string[]): string {
  const shown = problems.slice(0, 3).join('; ')
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''
  return `invalid job from the hub, not run: ${shown}${more}`
}

export function invalidJobResult(
  invalid: InvalidClaimedJob & { runId: string },
  context: { agent: AgentInfo; location: string; now: number },
): CheckResult {
  return {
    id: invalid.runId,
    checkId: invalid.checkId ?? UNKNOWN_CHECK_ID,
    // Whatever type the hub named, known to this agent or not: the hub stores it as text.
    checkType: (invalid.checkType ?? UNKNOWN_TYPE) as CheckType,
    name: invalid.name ?? `invalid job ${invalid.runId}`,
    status: 'failed',
    startedAt: new Date(context.now).toISOString(),
    durationMs: 0,
    location: context.location,
    attempt: invalid.attempt ?? 1,
    ...(invalid.sessionId === undefined ? {} : { sessionId: invalid.sessionId }),
    error: { code: INVALID_JOB, message: invalidJobMessage(invalid.problems) },
    assertions: [],
    artifacts: [],
    details: { problems: invalid.problems },
    agent: context.agent,
  }
}
