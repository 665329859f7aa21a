// Writing a run's result row. A run id has one row: the first real result is inserted, and the
// sweep's stand-in for a run that never reported (a JOB_EXPIRED placeholder) may be replaced once by
// the real result when it arrives late (an agent's spool delivered after a long hub outage or agent
// downtime). Everything after that is a duplicate.

import type { Queryable, SqlValue } from '../db/types.ts'
import type { IncomingResult } from './jobs.ts'

function rowValues(
  accountId: string,
  result: IncomingResult,
  agentId: string | null,
  at: number,
): SqlValue[] {
  const started = Date.parse(result.startedAt)
  return [
    accountId,
    result.id,
    result.checkId,
    result.checkType,
    result.status,
    Number.isFinite(started) ? started : at,
    result.sessionId ?? null,
    agentId,
    JSON.stringify(result),
    at,
  ]
}

/** True when the row was inserted, false when the run id already has one. */
export async function insertResult(
  tx: Queryable,
  accountId: string,
  result: IncomingResult,
  agentId: string | null,
  at: number,
  kind: 'real' | 'placeholder' = 'real',
): Promise<boolean> {
  const inserted = await tx.query(
    `INSERT INTO results (account_id, id, check_id, check_type, status, started_at, session_id, agent_id, body,
     received_at, placeholder) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (account_id, id) DO NOTHING RETURNING id`,
    [...rowValues(accountId, result, agentId, at), kind === 'placeholder' ? 1 : 0],
  )
  return inserted.length > 0
}

/**
 * Puts a real result in place of the run's placeholder; false when the row is not a placeholder
 * (any more) or is the placeholder of another check: a result naming the run id with a check the
 * run was not for is a repeat of the run id like any other (a duplicate), and never moves the row
 * into that check's history. The condition is part of the UPDATE, so of two concurrent replacements
 * only one matches: PostgreSQL re-evaluates it on the row the first one committed, SQLite runs one
 * writer.
 */
export async function replacePlaceholder(
  tx: Queryable,
  accountId: string,
  result: IncomingResult,
  agentId: string | null,
  at: number,
): Promise<boolean> {
  const replaced = await tx.query(
    `UPDATE results SET status = $5, started_at = $6, session_id = $7, agent_id = $8, body = $9,
     received_at = $10, placeholder = 0
     WHERE account_id = $1 AND id = $2 AND check_id = $3 AND check_type = $4 AND placeholder = 1 RETURNING id`,
    rowValues(accountId, result, agentId, at),
  )
  return replaced.length > 0
}
