// Monitors deployed as code (`outpost deploy` -> PUT /v1/checks) and the hub's schedule of them: each
// activated check gets a job at each of its private locations every frequencySeconds. Due checks are
// taken with FOR UPDATE SKIP LOCKED (PostgreSQL) or inside SQLite's single writer, so replicas never
// schedule the same run twice.

import type { Db, SqlValue } from '../db/types.ts'
import { newId } from './ids.ts'
import type { QueuedCheck } from './jobs.ts'

export interface DeployedCheck extends QueuedCheck {
  name: string
  frequencySeconds: number
  privateLocations?: string[]
  activated?: boolean
}

export interface DeployOutcome {
  created: number
  updated: number
  deleted: number
}

interface DueRow {
  [column: string]: SqlValue
  account_id: string
  logical_id: string
  type: string
  definition: string
  frequency_ms: number
  locations: string
  next_due_at: number
}

export function createChecksStore(db: Db, now: () => number) {
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''
  return {
    /** Replaces the account's deployed checks with `checks` (matched by logicalId). */
    async deployChecks(accountId: string, checks: DeployedCheck[]): Promise<DeployOutcome> {
      const at = now()
      return db.transaction(async (tx) => {
        const existing = await tx.query<{ logical_id: string; frequency_ms: number; next_due_at: number }>(
          'SELECT logical_id, frequency_ms, next_due_at FROM checks WHERE account_id = $1',
          [accountId],
        )
        const known = new Map(existing.map((row) => [row.logical_id, row]))
        const outcome: DeployOutcome = { created: 0, updated: 0, deleted: 0 }
        for (const check of checks) {
          const frequencyMs = check.frequencySeconds * 1000
          const values = [
            accountId,
            check.logicalId,
            check.type,
            JSON.stringify(check),
            frequencyMs,
            JSON.stringify(check.privateLocations ?? []),
            check.activated === false ? 0 : 1,
          ]
          const previous = known.get(check.logicalId)
          if (previous === undefined) {
            // A new check runs at once, then on its frequency.
            await tx.query(
              `INSERT INTO checks (account_id, logical_id, type, definition, frequency_ms, locations, activated, next_due_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
              [...values, at],
            )
            outcome.created += 1
          } else {
            // A shorter frequency takes effect now rather than after the old, longer wait.
            const nextDue = Math.min(previous.next_due_at, at + frequencyMs)
            await tx.query(
              `UPDATE checks SET type = $3, definition = $4, frequency_ms = $5, locations = $6, activated = $7,
               next_due_at = $8, updated_at = $9 WHERE account_id = $1 AND logical_id = $2`,
              [...values, nextDue, at],
            )
            outcome.updated += 1
            known.delete(check.logicalId)
          }
        }
        for (const logicalId of known.keys()) {
          await tx.query('DELETE FROM checks WHERE account_id = $1 AND logical_id = $2', [
            accountId,
            logicalId,
          ])
          outcome.deleted += 1
        }
        return outcome
      })
    },

    async listChecks(accountId: string): Promise<DeployedCheck[]> {
      const rows = await db.query<{ definition: string }>(
        'SELECT definition FROM checks WHERE account_id = $1 ORDER BY logical_id',
        [accountId],
      )
      return rows.map((row) => JSON.parse(row.definition) as DeployedCheck)
    },

    /** Queues a job per location for every check that is due; returns how many jobs were queued. */
    async scheduleDue(limit = 500): Promise<number> {
      const at = now()
      return db.transaction(async (tx) => {
        const due = await tx.query<DueRow>(
          `SELECT account_id, logical_id, type, definition, frequency_ms, locations, next_due_at FROM checks
           WHERE activated = 1 AND next_due_at <= $1 ORDER BY next_due_at LIMIT $2${skipLocked}`,
          [at, limit],
        )
        let queued = 0
        for (const row of due) {
          const check = JSON.parse(row.definition) as DeployedCheck
          for (const location of JSON.parse(row.locations) as string[]) {
            await tx.query(
              `INSERT INTO jobs (id, account_id, check_id, check_type, runtime_id, location, definition, session_id,
               test_session, state, due_at, available_at, claims) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, 0, 'queued', $8, $9, 0)`,
              [
                newId(),
                row.account_id,
                row.logical_id,
                row.type,
                check.runtimeId ?? null,
                location,
                row.definition,
                row.next_due_at,
                at,
              ],
            )
            queued += 1
          }
          // Runs missed while no hub was up are skipped, not queued in a burst.
          const periods = Math.floor((at - row.next_due_at) / row.frequency_ms) + 1
          await tx.query('UPDATE checks SET next_due_at = $3 WHERE account_id = $1 AND logical_id = $2', [
            row.account_id,
            row.logical_id,
            row.next_due_at + periods * row.frequency_ms,
          ])
        }
        return queued
      })
    },
  }
}

export type ChecksStore = ReturnType<typeof createChecksStore>
