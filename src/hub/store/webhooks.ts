// Status-page subscribers (webhook URLs) and the outbox of deliveries. An incident update with
// notifySubscribers queues one delivery per subscriber in the same transaction as the update, so a
// notification is never lost; the dispatcher (webhooks.ts) sends each at least once, retrying with
// backoff, and receivers de-duplicate by the delivery id it sends along.

import type { Db, Queryable, SqlValue } from '../db/types.ts'
import { iso, newId } from './ids.ts'

export interface Subscriber {
  id: string
  url: string
  created_at: string
}

export interface DueDelivery {
  id: string
  url: string
  payload: string
  attempts: number
}

/** How long a taken delivery is left alone by other replicas while it is being sent. */
const SEND_LEASE_MS = 60_000
/** After this many failed attempts a delivery is given up (its last error stays recorded). */
export const MAX_WEBHOOK_ATTEMPTS = 15
const GIVEN_UP = 8_000_000_000_000_000

/** Queues the payload for every subscriber of the account; part of the caller's transaction. */
export async function queueWebhooks(
  tx: Queryable,
  accountId: string,
  payload: unknown,
  at: number,
): Promise<void> {
  const subscribers = await tx.query<{ id: string; url: string }>(
    'SELECT id, url FROM subscribers WHERE account_id = $1',
    [accountId],
  )
  for (const subscriber of subscribers) {
    await tx.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscriber_id, url, payload, attempts, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, 0, $6, $6)`,
      [newId(), accountId, subscriber.id, subscriber.url, JSON.stringify(payload), at],
    )
  }
}

export function createWebhooksStore(db: Db, now: () => number) {
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''
  return {
    async createSubscriber(accountId: string, url: string): Promise<Subscriber> {
      const row = { id: newId(), url, created_at: now() }
      await db.query('INSERT INTO subscribers (id, account_id, url, created_at) VALUES ($1, $2, $3, $4)', [
        row.id,
        accountId,
        url,
        row.created_at,
      ])
      return { ...row, created_at: iso(row.created_at) }
    },

    async listSubscribers(accountId: string): Promise<Subscriber[]> {
      const rows = await db.query<{ id: string; url: string; created_at: number }>(
        'SELECT id, url, created_at FROM subscribers WHERE account_id = $1 ORDER BY created_at, id',
        [accountId],
      )
      return rows.map((r) => ({ id: r.id, url: r.url, created_at: iso(r.created_at) }))
    },

    async deleteSubscriber(accountId: string, id: string): Promise<boolean> {
      const rows = await db.query('DELETE FROM subscribers WHERE account_id = $1 AND id = $2 RETURNING id', [
        accountId,
        id,
      ])
      return rows.length > 0
    },

    /** Takes deliveries that are due, leasing them to this replica while they are sent. */
    async takeDueWebhooks(limit = 50): Promise<DueDelivery[]> {
      const at = now()
      return db.transaction(async (tx) => {
        const rows = await tx.query<{
          [k: string]: SqlValue
          id: string
          url: string
          payload: string
          attempts: number
        }>(
          `SELECT id, url, payload, attempts FROM webhook_deliveries WHERE delivered_at IS NULL AND next_attempt_at <= $1
           ORDER BY next_attempt_at LIMIT $2${skipLocked}`,
          [at, limit],
        )
        for (const row of rows) {
          await tx.query('UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1', [
            row.id,
            at + SEND_LEASE_MS,
          ])
        }
        return rows.map((r) => ({ id: r.id, url: r.url, payload: r.payload, attempts: r.attempts }))
      })
    },

    async webhookDelivered(id: string): Promise<void> {
      await db.query(
        'UPDATE webhook_deliveries SET delivered_at = $2, attempts = attempts + 1 WHERE id = $1',
        [id, now()],
      )
    },

    /** Records a failed attempt; the next one after `retryInMs`, or none after MAX_WEBHOOK_ATTEMPTS. */
    async webhookFailed(id: string, attempts: number, retryInMs: number, error: string): Promise<void> {
      const next = attempts >= MAX_WEBHOOK_ATTEMPTS ? GIVEN_UP : now() + Math.round(retryInMs)
      await db.query(
        'UPDATE webhook_deliveries SET attempts = $2, next_attempt_at = $3, last_error = $4 WHERE id = $1',
        [id, attempts, next, error.slice(0, 500)],
      )
    },
  }
}

export type WebhooksStore = ReturnType<typeof createWebhooksStore>
