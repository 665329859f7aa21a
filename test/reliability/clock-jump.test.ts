// The wall clock jumps (NTP step, a VM resumed, an operator's `date -s`) under the local schedule. The
// schedule reads an injected clock: real time plus an offset the test moves. Backwards, the checks
// must not wait out the jump; forwards, they must not replay every missed run at once.

import { describe, expect, it } from 'vitest'
import { createLocalSource } from '../../src/agent/local-source.ts'
import type { Job } from '../../src/model/job.ts'
import { urlCheck } from '../helpers/definitions.ts'

const HOUR = 3_600_000

function clock(): { now: () => number; jump(ms: number): void } {
  let offset = 0
  return {
    now: () => Date.now() + offset,
    jump: (ms) => {
      offset += ms
    },
  }
}

/** Takes jobs until `enough` says stop; the source's own waits are real, one second per run here. */
async function take(
  jobs: AsyncIterator<Job>,
  enough: (taken: Job[]) => boolean,
  onJob: (job: Job, taken: Job[]) => void = () => {},
): Promise<Job[]> {
  const taken: Job[] = []
  // Bounded: a schedule stuck behind a jump never yields, and the test's timeout ends it.
  for (let i = 0; i < 200 && !enough(taken); i++) {
    const next = await jobs.next()
    if (next.done) break
    taken.push(next.value)
    onJob(next.value, taken)
  }
  return taken
}

describe('the local schedule when the wall clock jumps', () => {
  const checks = [
    urlCheck('every-second', { frequencySeconds: 1 }),
    urlCheck('every-two', { frequencySeconds: 2 }),
  ]

  it('an hour back: runs go on within a period instead of after an hour', async () => {
    const c = clock()
    const stop = new AbortController()
    const jobs = createLocalSource({ checks, now: c.now }).jobs(stop.signal)[Symbol.asyncIterator]()
    const taken = await take(
      jobs,
      (t) => t.length >= 7,
      (_job, t) => {
        if (t.length === 3) c.jump(-HOUR)
      },
    )
    stop.abort()
    const afterJump = taken.slice(3)
    expect(afterJump.length).toBeGreaterThanOrEqual(4)
    // Due times after the jump are on the new clock (about an hour earlier), each check still on its grid.
    for (const job of afterJump) expect(job.dueAt).toBeLessThan(taken[0]!.dueAt - HOUR / 2)
    for (const job of afterJump)
      expect(job.dueAt % (job.check.frequencySeconds * 1000)).toBe(
        taken.find((t) => t.check.logicalId === job.check.logicalId)!.dueAt %
          (job.check.frequencySeconds * 1000),
      )
  }, 60_000)

  it('an hour forward: one run per check, then back on the grid; no burst of missed runs', async () => {
    const c = clock()
    const stop = new AbortController()
    const jobs = createLocalSource({ checks, now: c.now }).jobs(stop.signal)[Symbol.asyncIterator]()
    let jumpedAt = 0
    const taken = await take(
      jobs,
      (t) => jumpedAt > 0 && t.filter((j) => j.dueAt >= jumpedAt).length >= 3,
      (_job, t) => {
        if (t.length === 3) {
          c.jump(HOUR)
          jumpedAt = c.now()
        }
      },
    )
    stop.abort()
    // Runs due before the jump and yielded after it: at most one per check (the overdue one).
    const overdue = taken.slice(3).filter((j) => j.dueAt < jumpedAt)
    const perCheck = new Map<string, number>()
    for (const j of overdue) perCheck.set(j.check.logicalId, (perCheck.get(j.check.logicalId) ?? 0) + 1)
    for (const n of perCheck.values()) expect(n).toBe(1)
    // 3,600 missed runs of the one-second check were not replayed.
    expect(taken.length).toBeLessThan(20)
  }, 60_000)
})
