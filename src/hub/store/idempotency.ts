// Idempotency-Key for writes whose ids the hub chooses (incidents, incident updates): the first
// request with a key writes and records its answer in the same transaction, so a hub killed in
// between leaves both or neither; a repeat gets that answer back instead of writing again.
//
// Lock order: the key's row is the first thing such a transaction writes. A second request with the
// same key waits on the key's unique index (PostgreSQL; on SQLite transactions run one at a time)
// while holding nothing else, and once the first commits it reads the recorded answer (a replay);
// if the first rolled back, the second writes. So concurrent requests never see "in progress".

import { createHash } from 'node:crypto'
import type { Db, Queryable } from '../db/types.ts'

/** Keys are kept this long after their first use; a key older than that is free again. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
/** Rows one periodic cleanup deletes at most: the next run takes the rest. */
export const IDEMPOTENCY_SWEEP_BATCH = 1000

export interface IdempotentRequest {
  accountId: string
  /** The route pattern, e.g. 'POST /v1/status-pages/incidents'. */
  route: string
  key: string
  /** hashRequest() of the route, its path parameters and the validated body. */
  requestHash: string
}

export interface StoredAnswer {
  status: number
  /** The JSON text sent. */
  body: string
}

export type IdempotentOutcome<T> =
  | { kind: 'written'; value: T; answer: StoredAnswer }
  /** The write found nothing to write (e.g. an unknown incident): nothing recorded, the key stays free. */
  | { kind: 'refused' }
  | { kind: 'replayed'; answer: StoredAnswer }
  | { kind: 'mismatch' }

/** JSON with object keys sorted at every level, so equal requests hash equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export function hashRequest(route: string, params: unknown, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ route, params, body })).digest('hex')
}

/**
 * Runs `write` once per key. `write` returns the value and the answer to record, or null when it
 * wrote nothing (the key is released in the same transaction). An error thrown by `write` rolls
 * back the key too: only successful answers are recorded.
 */
export async function runOnce<T>(
  db: Db,
  at: number,
  request: IdempotentRequest,
  write: (tx: Queryable) => Promise<{ value: T; answer: StoredAnswer } | null>,
): Promise<IdempotentOutcome<T>> {
  return db.transaction(async (tx): Promise<IdempotentOutcome<T>> => {
    const keyParams = [request.accountId, request.route, request.key]
    // An expired key is free again, whether or not the periodic cleanup has reached it.
    await tx.query(
      'DELETE FROM idempotency_keys WHERE account_id = $1 AND route = $2 AND idem_key = $3 AND created_at < $4',
      [...keyParams, at - IDEMPOTENCY_RETENTION_MS],
    )
    const claimed = await tx.query(
      `INSERT INTO idempotency_keys (account_id, route, idem_key, request_hash, status, body, created_at)
       VALUES ($1, $2, $3, $4, NULL, NULL, $5) ON CONFLICT (account_id, route, idem_key) DO NOTHING
       RETURNING idem_key`,
      [...keyParams, request.requestHash, at],
    )
    if (claimed.length === 0) {
      // Committed by another request (READ COMMITTED: this statement sees what committed meanwhile).
      const [row] = await tx.query<{ request_hash: string; status: number | null; body: string | null }>(
        'SELECT request_hash, status, body FROM idempotency_keys WHERE account_id = $1 AND route = $2 AND idem_key = $3',
        keyParams,
      )
      if (row === undefined || row.status === null || row.body === null) {
        // Unreachable while the key row is written and answered in one transaction.
        throw new Error(`idempotency key row for ${request.route} has no recorded answer`)
      }
      if (row.request_hash !== request.requestHash) return { kind: 'mismatch' }
      return { kind: 'replayed', answer: { status: Number(row.status), body: row.body } }
    }
    const written = await write(tx)
    if (written === null) {
      await tx.query(
        'DELETE FROM idempotency_keys WHERE account_id = $1 AND route = $2 AND idem_key = $3',
        keyParams,
      )
      return { kind: 'refused' }
    }
    await tx.query(
      'UPDATE idempotency_keys SET status = $4, body = $5 WHERE account_id = $1 AND route = $2 AND idem_key = $3',
      [...keyParams, written.answer.status, written.answer.body],
    )
    return { kind: 'written', ...written }
  })
}

/** Deletes up to IDEMPOTENCY_SWEEP_BATCH expired keys; returns how many. */
export async function sweepIdempotencyKeys(db: Db, at: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM idempotency_keys WHERE (account_id, route, idem_key) IN
     (SELECT account_id, route, idem_key FROM idempotency_keys WHERE created_at < $1 LIMIT $2)
     RETURNING idem_key`,
    [at - IDEMPOTENCY_RETENTION_MS, IDEMPOTENCY_SWEEP_BATCH],
  )
  return rows.length
}
