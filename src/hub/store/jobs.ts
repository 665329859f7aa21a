// Check sessions, agents and the job queue they claim from, and recording results.
//
// A job is queued -> claimed (by one agent, until its lease runs out) -> done, or expired when no
// agent claimed it in time, or cancelled with its session. A claimed job whose lease ran out is
// claimable again: its agent vanished. Results are keyed by run id, so a second delivery of the same
// result (a retry after a lost response, or a second agent after a lapsed lease) changes nothing.
// One exception: the failed JOB_EXPIRED result the sweep records for a job that never reported is a
// placeholder, and the run's real result replaces it once if it still arrives (an agent's spool
// delivered after a hub outage or agent downtime longer than lease + expiry); the job is then done
// and its session settled again from the real outcome.

import type { Db, Queryable, SqlValue } from '../db/types.ts'
import { expiredResult } from './expired-result.ts'
import { newId } from './ids.ts'
import type { SessionStatus } from './model.ts'
import { insertResult, replacePlaceholder } from './result-rows.ts'

export interface JobTimings {
  /** How long a claim holds before the job may run elsewhere. */
  leaseMs: number
  /** How long a job may wait unclaimed before it expires. */
  expireAfterMs: number
}

/** The part of a check definition the queue looks at; the rest is carried through unchanged. */
export interface QueuedCheck {
  type: string
  logicalId: string
  runtimeId?: string
  [key: string]: unknown
}

export interface AgentRegistration {
  id: string
  flavor: string
  version: string
  location: string
  checkTypes: string[]
  runtimes: string[]
}

/** Up to `max` jobs of these check types (all the agent registered when absent). */
export interface ClaimGroup {
  checkTypes?: readonly string[]
  max: number
}

export interface ClaimedJob {
  id: string
  check: QueuedCheck
  dueAt: number
  attempt: number
  sessionId?: string
  testSession: boolean
  leaseUntil: number
}

/** What the store needs of a CheckResult; the whole object is kept as sent. */
export interface IncomingResult {
  id: string
  checkId: string
  checkType: string
  status: 'passed' | 'degraded' | 'failed'
  startedAt: string
  sessionId?: string
  willRetry?: boolean
  [key: string]: unknown
}

export interface JobRow {
  [column: string]: SqlValue
  id: string
  account_id: string
  check_id: string
  check_type: string
  location: string
  state: string
  definition: string
  session_id: string | null
  test_session: number
  due_at: number
  claims: number
  claimed_by: string | null
  lease_until: number | null
}

const FINISHED_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000

const JOB_COLUMNS =
  'id, account_id, check_id, check_type, location, state, definition, session_id, test_session, due_at, claims, claimed_by, lease_until'

function placeholders(count: number, from: number): string {
  return Array.from({ length: count }, (_, i) => `$${i + from}`).join(', ')
}

/** A session's final status from its jobs, or RUNNING while any is unfinished. */
function sessionOutcome(jobs: Array<{ state: string; status: string | null }>): SessionStatus {
  if (jobs.some((j) => j.state === 'queued' || j.state === 'claimed' || j.state === 'retrying'))
    return 'RUNNING'
  if (jobs.some((j) => j.state === 'cancelled')) return 'CANCELLED'
  if (jobs.some((j) => j.state === 'expired')) return 'TIMED_OUT'
  if (jobs.some((j) => j.status === 'failed')) return 'FAILED'
  if (jobs.some((j) => j.status === 'degraded')) return 'DEGRADED'
  return 'PASSED'
}

export function createJobsStore(db: Db, now: () => number, timings: JobTimings) {
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''
  const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : ''

  /**
   * Sets the session's status from its jobs once none is unfinished. Only a session in one of
   * `settles` is looked at: RUNNING normally; also TIMED_OUT when a late result replaced the
   * placeholder that may have timed it out (a FAILED, PASSED or CANCELLED session is final).
   */
  async function settleSession(
    tx: Queryable,
    sessionId: string,
    at: number,
    settles: readonly SessionStatus[] = ['RUNNING'],
  ): Promise<void> {
    const sessions = await tx.query<{ status: string }>(
      `SELECT status FROM check_sessions WHERE id = $1${lock}`,
      [sessionId],
    )
    const status = sessions[0]?.status as SessionStatus | undefined
    if (status === undefined || !settles.includes(status)) return
    const jobs = await tx.query<{ state: string; status: string | null }>(
      `SELECT j.state, r.status FROM jobs j LEFT JOIN results r ON r.account_id = j.account_id AND r.id = j.id
       WHERE j.session_id = $1`,
      [sessionId],
    )
    const outcome = sessionOutcome(jobs)
    if (outcome !== 'RUNNING' && outcome !== status) {
      await tx.query('UPDATE check_sessions SET status = $2, finished_at = $3 WHERE id = $1', [
        sessionId,
        outcome,
        at,
      ])
    }
  }

  return {
    async createSession(
      accountId: string,
      checks: QueuedCheck[],
      location: string,
    ): Promise<{ id: string; runIds: string[] }> {
      const at = now()
      const id = newId()
      const runIds = checks.map(() => newId())
      await db.transaction(async (tx) => {
        await tx.query(
          'INSERT INTO check_sessions (id, account_id, status, created_at) VALUES ($1, $2, $3, $4)',
          [id, accountId, 'RUNNING', at],
        )
        for (const [i, check] of checks.entries()) {
          await tx.query(
            `INSERT INTO jobs (id, account_id, check_id, check_type, runtime_id, location, definition, session_id,
             test_session, state, due_at, available_at, claims) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, 'queued', $9, $9, 0)`,
            [
              runIds[i] as string,
              accountId,
              check.logicalId,
              check.type,
              check.runtimeId ?? null,
              location,
              JSON.stringify(check),
              id,
              at,
            ],
          )
        }
      })
      return { id, runIds }
    },

    async sessionStatus(accountId: string, sessionId: string): Promise<SessionStatus | null> {
      const rows = await db.query<{ status: string }>(
        'SELECT status FROM check_sessions WHERE account_id = $1 AND id = $2',
        [accountId, sessionId],
      )
      return (rows[0]?.status as SessionStatus | undefined) ?? null
    },

    async cancelSession(accountId: string, sessionId: string): Promise<SessionStatus | null> {
      return db.transaction(async (tx) => {
        // Jobs before their session, the order results and the sweep lock them in (no deadlock).
        await tx.query(`SELECT id FROM jobs WHERE account_id = $1 AND session_id = $2 ORDER BY id${lock}`, [
          accountId,
          sessionId,
        ])
        const rows = await tx.query<{ status: string }>(
          `SELECT status FROM check_sessions WHERE account_id = $1 AND id = $2${lock}`,
          [accountId, sessionId],
        )
        const status = rows[0]?.status as SessionStatus | undefined
        if (status === undefined) return null
        if (status !== 'RUNNING') return status
        const at = now()
        await tx.query(
          `UPDATE jobs SET state = 'cancelled', finished_at = $2 WHERE session_id = $1 AND state IN ('queued', 'claimed', 'retrying')`,
          [sessionId, at],
        )
        await tx.query(`UPDATE check_sessions SET status = 'CANCELLED', finished_at = $2 WHERE id = $1`, [
          sessionId,
          at,
        ])
        return 'CANCELLED'
      })
    },

    async registerAgent(accountId: string, agent: AgentRegistration): Promise<void> {
      const at = now()
      await db.query(
        `INSERT INTO agents (id, account_id, flavor, version, location, check_types, runtimes, registered_at, last_seen)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
         ON CONFLICT (account_id, id) DO UPDATE SET flavor = $3, version = $4, location = $5, check_types = $6,
         runtimes = $7, registered_at = $8, last_seen = $8`,
        [
          agent.id,
          accountId,
          agent.flavor,
          agent.version,
          agent.location,
          JSON.stringify(agent.checkTypes),
          JSON.stringify(agent.runtimes),
          at,
        ],
      )
    },

    /**
     * Leases jobs the agent can run, at most `group.max` of each group's check types (an agent asks
     * for as many light and heavy jobs as it has free slots of each). Null when the agent has not
     * registered (the hub then answers 409 so it registers again).
     */
    async claim(
      accountId: string,
      agentId: string,
      groups: readonly ClaimGroup[],
    ): Promise<ClaimedJob[] | null> {
      const at = now()
      const agents = await db.query<{ location: string; check_types: string; runtimes: string }>(
        `UPDATE agents SET last_seen = $3 WHERE account_id = $1 AND id = $2 RETURNING location, check_types, runtimes`,
        [accountId, agentId, at],
      )
      const agent = agents[0]
      if (agent === undefined) return null
      const registered = JSON.parse(agent.check_types) as string[]
      const runtimes = JSON.parse(agent.runtimes) as string[]
      const leaseUntil = at + timings.leaseMs
      const cutoff = at - timings.expireAfterMs
      return db.transaction(async (tx) => {
        const ids = new Set<string>()
        for (const group of groups) {
          const types = group.checkTypes
            ? registered.filter((t) => group.checkTypes?.includes(t))
            : registered
          if (types.length === 0 || group.max <= 0) continue
          const runtimeFilter =
            runtimes.length > 0
              ? `(runtime_id IS NULL OR runtime_id IN (${placeholders(runtimes.length, 6 + types.length)}))`
              : 'runtime_id IS NULL'
          // Jobs past their expiry are left to the sweep, so an expired job is never handed out.
          const candidates = await tx.query<{ id: string }>(
            `SELECT id FROM jobs WHERE account_id = $1 AND location = $2
             AND ((state = 'queued' AND available_at >= $4) OR (state = 'claimed' AND lease_until < $3 AND lease_until >= $4))
             AND check_type IN (${placeholders(types.length, 6)}) AND ${runtimeFilter}
             ORDER BY available_at, id LIMIT $5${skipLocked}`,
            [accountId, agent.location, at, cutoff, group.max, ...types, ...runtimes],
          )
          for (const candidate of candidates) ids.add(candidate.id)
        }
        if (ids.size === 0) return []
        const rows = await tx.query<JobRow>(
          `UPDATE jobs SET state = 'claimed', claimed_by = $1, lease_until = $2, claims = claims + 1
           WHERE id IN (${placeholders(ids.size, 3)}) RETURNING ${JOB_COLUMNS}`,
          [agentId, leaseUntil, ...ids],
        )
        return rows
          .sort((a, b) => a.due_at - b.due_at)
          .map((row) => ({
            id: row.id,
            check: JSON.parse(row.definition) as QueuedCheck,
            dueAt: row.due_at,
            attempt: 1,
            ...(row.session_id ? { sessionId: row.session_id } : {}),
            testSession: row.test_session === 1,
            leaseUntil,
          }))
      })
    },

    /** Extends the lease of a job the agent still holds; false when it no longer holds it. */
    async renewLease(accountId: string, agentId: string, runId: string): Promise<number | null> {
      const leaseUntil = now() + timings.leaseMs
      const rows = await db.query(
        `UPDATE jobs SET lease_until = $4 WHERE account_id = $1 AND id = $2 AND claimed_by = $3 AND state = 'claimed'
         RETURNING id`,
        [accountId, runId, agentId, leaseUntil],
      )
      return rows.length > 0 ? leaseUntil : null
    },

    /**
     * Expires jobs nobody claimed in time, and claimed jobs whose lease ran out without a renewal or
     * a result and that nobody took over in time, recording a failed JOB_EXPIRED placeholder for each.
     */
    async sweep(): Promise<number> {
      const at = now()
      const cutoff = at - timings.expireAfterMs
      return db.transaction(async (tx) => {
        const rows = await tx.query<JobRow>(
          `SELECT ${JOB_COLUMNS} FROM jobs WHERE (state = 'queued' AND available_at < $1)
           OR (state = 'claimed' AND lease_until < $1) LIMIT 500${skipLocked}`,
          [cutoff],
        )
        // Sessions are locked in one order (by id), so two replicas sweeping at once cannot each hold
        // a session the other waits for.
        const sessionKey = (job: JobRow): string => job.session_id ?? ''
        rows.sort((a, b) => (sessionKey(a) < sessionKey(b) ? -1 : sessionKey(a) > sessionKey(b) ? 1 : 0))
        for (const job of rows) {
          await tx.query(`UPDATE jobs SET state = 'expired', finished_at = $2 WHERE id = $1`, [job.id, at])
          const placeholder = expiredResult(job, at, timings.expireAfterMs)
          await insertResult(tx, job.account_id, placeholder, null, at, 'placeholder')
          if (job.session_id) await settleSession(tx, job.session_id, at)
        }
        // Finished jobs are kept a week (their results stay): enough to investigate, bounded in size.
        await tx.query(
          `DELETE FROM jobs WHERE finished_at < $1 AND state IN ('done', 'expired', 'cancelled')`,
          [at - FINISHED_JOB_RETENTION_MS],
        )
        return rows.length
      })
    },

    /**
     * 'created' the first time a run id is reported; 'replaced' when the real result takes the place
     * of the sweep's JOB_EXPIRED placeholder (once); 'duplicate' otherwise.
     */
    async recordResult(
      accountId: string,
      result: IncomingResult,
      agentId: string | null,
    ): Promise<'created' | 'replaced' | 'duplicate'> {
      const at = now()
      return db.transaction(async (tx) => {
        // The job first, as the sweep takes it: a result and a sweep of the same job queue up on its
        // row instead of each holding what the other waits for (the result row, the job row).
        await tx.query(`SELECT id FROM jobs WHERE account_id = $1 AND id = $2${lock}`, [accountId, result.id])
        if (!(await insertResult(tx, accountId, result, agentId, at))) {
          if (!(await replacePlaceholder(tx, accountId, result, agentId, at))) return 'duplicate'
          // The run did report after all: its job is done, and a session the placeholder timed out
          // gets the status its real results give it. A retry the late result asks for is not
          // started: the session has been answered already.
          const expired = await tx.query<{ session_id: string | null }>(
            `UPDATE jobs SET state = 'done', finished_at = $3 WHERE account_id = $1 AND id = $2 AND state = 'expired'
             RETURNING session_id`,
            [accountId, result.id, at],
          )
          const sessionId = expired[0]?.session_id
          if (sessionId) await settleSession(tx, sessionId, at, ['RUNNING', 'TIMED_OUT'])
          return 'replaced'
        }
        // A result that will be retried leaves its job open until the retry's result (a new run id,
        // same session and check) arrives.
        const next = result.willRetry === true && result.sessionId !== undefined ? 'retrying' : 'done'
        const jobs = await tx.query<{ session_id: string | null }>(
          `UPDATE jobs SET state = $3, finished_at = $4 WHERE account_id = $1 AND id = $2
           AND state IN ('queued', 'claimed') RETURNING session_id`,
          [accountId, result.id, next, at],
        )
        if (jobs.length === 0 && result.sessionId !== undefined) {
          jobs.push(
            ...(await tx.query<{ session_id: string | null }>(
              `UPDATE jobs SET state = $4, finished_at = $5 WHERE account_id = $1 AND session_id = $2 AND check_id = $3
               AND state = 'retrying' RETURNING session_id`,
              [accountId, result.sessionId, result.checkId, next, at],
            )),
          )
        }
        const sessionId = jobs[0]?.session_id
        if (sessionId) await settleSession(tx, sessionId, at)
        return 'created'
      })
    },
  }
}

export type JobsStore = ReturnType<typeof createJobsStore>
