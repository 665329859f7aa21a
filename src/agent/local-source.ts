// The local schedule: every activated check from monitors as code, each on its own grid
// (schedule-math.ts). One heap of due times and one timer, whatever the number of checks.

import { randomUUID } from 'node:crypto'
import type { CheckDefinition } from '../model/checks.ts'
import type { Job } from '../model/job.ts'
import type { JobSource } from './job-source.ts'
import { MinHeap } from './min-heap.ts'
import { nextDueAt, stableOffsetMs } from './schedule-math.ts'
import { sleep } from './sleep.ts'

/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1

export interface LocalSourceOptions {
  checks: readonly CheckDefinition[]
  now?: () => number
}

export function createLocalSource(options: LocalSourceOptions): JobSource {
  const now = options.now ?? Date.now
  return {
    async *jobs(signal: AbortSignal): AsyncGenerator<Job> {
      const heap = new MinHeap<{ check: CheckDefinition; frequencyMs: number; offsetMs: number }>()
      const start = now()
      for (const check of options.checks) {
        if (!check.activated) continue
        const frequencyMs = check.frequencySeconds * 1000
        const offsetMs = stableOffsetMs(check.logicalId, frequencyMs)
        heap.push(nextDueAt(start, frequencyMs, offsetMs), { check, frequencyMs, offsetMs })
      }
      while (!signal.aborted) {
        const dueAt = heap.peekKey()
        if (dueAt === undefined) {
          // Nothing to schedule: stay open until the agent stops, like a schedule that is empty for now.
          await sleep(MAX_TIMER_MS, signal)
          continue
        }
        const wait = dueAt - now()
        if (wait > heap.peek()!.value.frequencyMs) {
          // No due time is ever more than one period ahead, so the wall clock went back: put every
          // check on its grid again from the new now, or they would all wait out the jump.
          const entries: { check: CheckDefinition; frequencyMs: number; offsetMs: number }[] = []
          for (let e = heap.pop(); e !== undefined; e = heap.pop()) entries.push(e.value)
          const at = now()
          for (const e of entries) heap.push(nextDueAt(at, e.frequencyMs, e.offsetMs), e)
          continue
        }
        if (wait > 0) {
          await sleep(wait, signal)
          continue
        }
        const { value } = heap.pop()!
        // The next run stays on the grid even when this one was late, so lateness never accumulates.
        heap.push(
          Math.max(dueAt + value.frequencyMs, nextDueAt(now(), value.frequencyMs, value.offsetMs)),
          value,
        )
        yield { id: randomUUID(), check: value.check, dueAt, attempt: 1, testSession: false }
      }
    },
    ack: async () => {},
  }
}
