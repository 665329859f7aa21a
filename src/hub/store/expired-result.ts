// The failed result the sweep records for a run that never reported: a JOB_EXPIRED placeholder. Its
// message tells apart a job no agent took (a location without agents, or without capacity) from one
// an agent took and then went silent (it died, or lost the hub): the second may still deliver its
// real result from its spool, which then replaces this one.

import type { IncomingResult, JobRow, QueuedCheck } from './jobs.ts'

/** The columns of a job row the placeholder is made from. */
export type ExpiredJob = Pick<
  JobRow,
  | 'id'
  | 'check_id'
  | 'check_type'
  | 'location'
  | 'state'
  | 'definition'
  | 'session_id'
  | 'claims'
  | 'claimed_by'
  | 'lease_until'
>

function reason(job: ExpiredJob, expireAfterMs: number): string {
  const seconds = Math.round(expireAfterMs / 1000)
  if (job.state !== 'claimed' || job.claimed_by === null || job.lease_until === null) {
    return `no agent at location ${job.location} claimed the job within ${seconds} s`
  }
  return (
    `agent ${job.claimed_by} claimed the job and sent neither its result nor a lease renewal before the lease ` +
    `ran out at ${new Date(job.lease_until).toISOString()}, and no agent at location ${job.location} took it ` +
    `over within ${seconds} s; the agent's result replaces this one if it still arrives`
  )
}

export function expiredResult(job: ExpiredJob, at: number, expireAfterMs: number): IncomingResult {
  const check = JSON.parse(job.definition) as QueuedCheck
  return {
    id: job.id,
    checkId: job.check_id,
    checkType: job.check_type,
    name: typeof check.name === 'string' ? check.name : job.check_id,
    status: 'failed',
    startedAt: new Date(at).toISOString(),
    durationMs: 0,
    location: job.location,
    attempt: job.claims + 1,
    ...(job.session_id ? { sessionId: job.session_id } : {}),
    error: { code: 'JOB_EXPIRED', message: reason(job, expireAfterMs) },
    assertions: [],
    artifacts: [],
  }
}
