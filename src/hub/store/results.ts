// Reading what agents reported: check results page by page, heartbeat results for availability,
// the private locations agents serve, and uploaded artifacts.

import type { Db } from '../db/types.ts'
import { type CursorPosition, encodeCursor } from './cursor.ts'
import type { HeartbeatEvent, Page } from './model.ts'

export interface LocationStatus {
  location: string
  agents: number
  lastSeen: string
  available: boolean
}

export function createResultsStore(db: Db, now: () => number) {
  return {
    async listResults(
      accountId: string,
      checkId: string,
      limit: number,
      after?: CursorPosition,
    ): Promise<Page<Record<string, unknown>>> {
      const rows = after
        ? await db.query<{ id: string; started_at: number; body: string }>(
            `SELECT id, started_at, body FROM results WHERE account_id = $1 AND check_id = $2
             AND (started_at < $3 OR (started_at = $3 AND id < $4)) ORDER BY started_at DESC, id DESC LIMIT $5`,
            [accountId, checkId, after.time, after.id, limit + 1],
          )
        : await db.query<{ id: string; started_at: number; body: string }>(
            `SELECT id, started_at, body FROM results WHERE account_id = $1 AND check_id = $2
             ORDER BY started_at DESC, id DESC LIMIT $3`,
            [accountId, checkId, limit + 1],
          )
      const page = rows.slice(0, limit)
      const last = page[page.length - 1]
      return {
        entries: page.map((r) => JSON.parse(r.body) as Record<string, unknown>),
        nextCursor:
          rows.length > limit && last !== undefined
            ? encodeCursor({ time: last.started_at, id: last.id })
            : null,
      }
    },

    async heartbeatEvents(
      accountId: string,
      checkId: string,
      from: number,
      to: number,
    ): Promise<HeartbeatEvent[]> {
      const rows = await db.query<{ started_at: number; status: string }>(
        `SELECT started_at, status FROM results WHERE account_id = $1 AND check_id = $2 AND check_type = 'HEARTBEAT'
         AND started_at >= $3 AND started_at <= $4`,
        [accountId, checkId, from, to],
      )
      return rows.map((r) => ({ time: r.started_at, status: r.status as HeartbeatEvent['status'] }))
    },

    /** Each location agents registered at, with the agents seen lately; unavailable when none was seen for `unavailableAfterMs`. */
    async locations(accountId: string, unavailableAfterMs: number): Promise<LocationStatus[]> {
      const at = now()
      const rows = await db.query<{ location: string; agents: number; last_seen: number }>(
        `SELECT location, SUM(CASE WHEN last_seen >= $2 THEN 1 ELSE 0 END) AS agents, MAX(last_seen) AS last_seen
         FROM agents WHERE account_id = $1 GROUP BY location ORDER BY location`,
        [accountId, at - unavailableAfterMs],
      )
      return rows.map((r) => ({
        location: r.location,
        agents: Number(r.agents),
        lastSeen: new Date(Number(r.last_seen)).toISOString(),
        available: at - Number(r.last_seen) < unavailableAfterMs,
      }))
    },

    async recordArtifact(
      accountId: string,
      artifact: { runId: string; name: string; size: number; sha256: string; path: string },
    ): Promise<void> {
      await db.query(
        `INSERT INTO artifacts (account_id, run_id, name, size, sha256, path, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (account_id, run_id, name) DO UPDATE SET size = $4, sha256 = $5, path = $6, created_at = $7`,
        [accountId, artifact.runId, artifact.name, artifact.size, artifact.sha256, artifact.path, now()],
      )
    },

    async findArtifact(
      accountId: string,
      runId: string,
      name: string,
    ): Promise<{ path: string; size: number } | null> {
      const rows = await db.query<{ path: string; size: number }>(
        'SELECT path, size FROM artifacts WHERE account_id = $1 AND run_id = $2 AND name = $3',
        [accountId, runId, name],
      )
      return rows[0] ?? null
    },
  }
}

export type ResultsStore = ReturnType<typeof createResultsStore>
