// Sends queued webhook deliveries: POST of the JSON payload with x-outpost-delivery (the same id on
// every attempt, so receivers can drop repeats) and x-outpost-event. A 2xx answer counts as
// delivered; anything else, or no answer within the timeout, is retried with exponential backoff and
// jitter, up to MAX_WEBHOOK_ATTEMPTS.

import type { HubStore } from './store/store.ts'

export interface WebhookDispatchOptions {
  store: HubStore
  /** Base of the backoff; the n-th retry waits up to base * 2^n, at most an hour. */
  backoffBaseMs?: number
  timeoutMs?: number
  random?: () => number
}

export async function dispatchDueWebhooks(options: WebhookDispatchOptions): Promise<number> {
  const base = options.backoffBaseMs ?? 5000
  const random = options.random ?? Math.random
  const due = await options.store.takeDueWebhooks()
  await Promise.all(
    due.map(async (delivery) => {
      const attempts = delivery.attempts + 1
      let failure: string
      try {
        const response = await fetch(delivery.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-outpost-delivery': delivery.id,
            'x-outpost-event': 'incident.update',
            'user-agent': 'outpost-hub',
          },
          body: delivery.payload,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        })
        await response.arrayBuffer().catch(() => undefined)
        if (response.status >= 200 && response.status < 300) {
          await options.store.webhookDelivered(delivery.id)
          return
        }
        failure = `HTTP ${response.status}`
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause
        failure = cause?.code ?? (error as Error).message
      }
      const ceiling = Math.min(3_600_000, base * 2 ** Math.min(attempts - 1, 20))
      // Half fixed, half random: never immediately, never all receivers' retries at once.
      await options.store.webhookFailed(
        delivery.id,
        attempts,
        ceiling / 2 + random() * (ceiling / 2),
        failure,
      )
    }),
  )
  return due.length
}
