// Two p-queues: light (URL/DNS/TCP/ICMP/heartbeat) and heavy (Playwright). A slow browser check
// can then never hold up a thousand uptime probes, and each side has its own concurrency.

import PQueue from 'p-queue'
import { type CheckType, isUptimeCheckType } from '../model/checks.ts'
import type { AgentMetrics } from '../telemetry/metrics.ts'

export type QueueName = 'light' | 'heavy'

export interface Queues {
  light: PQueue
  heavy: PQueue
  for(type: CheckType): { name: QueueName; queue: PQueue }
  /** Jobs queued or running, over both queues. */
  pending(): number
  /** Drops jobs that have not started; returns how many. */
  clearWaiting(): number
  /** Resolves when nothing runs any more, or after `ms`; true when idle. */
  idle(ms: number): Promise<boolean>
}

export function createQueues(options: {
  uptimeConcurrency: number
  jobConcurrency: number
  metrics?: AgentMetrics
}): Queues {
  const light = new PQueue({ concurrency: options.uptimeConcurrency })
  const heavy = new PQueue({ concurrency: options.jobConcurrency })
  const metrics = options.metrics
  if (metrics) {
    for (const [name, queue] of [
      ['light', light],
      ['heavy', heavy],
    ] as const) {
      const update = (): void => {
        metrics.queueDepth.set({ queue: name }, queue.size)
        metrics.queueInFlight.set({ queue: name }, queue.pending)
      }
      queue.addEventListener('add', update)
      queue.addEventListener('active', update)
      queue.addEventListener('next', update)
    }
  }
  return {
    light,
    heavy,
    for: (type) =>
      isUptimeCheckType(type) ? { name: 'light', queue: light } : { name: 'heavy', queue: heavy },
    pending: () => light.size + light.pending + heavy.size + heavy.pending,
    clearWaiting() {
      const waiting = light.size + heavy.size
      light.clear()
      heavy.clear()
      return waiting
    },
    async idle(ms) {
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), ms)
      })
      const done = Promise.all([light.onIdle(), heavy.onIdle()]).then(() => true as const)
      try {
        return await Promise.race([done, timedOut])
      } finally {
        clearTimeout(timer)
      }
    },
  }
}
