import { expect, it } from 'vitest'
import { createLocalSource } from '../../src/agent/local-source.ts'
import { stableOffsetMs } from '../../src/agent/schedule-math.ts'
import type { Job } from '../../src/model/job.ts'
import { urlCheck } from '../helpers/definitions.ts'

it('yields each check on its own grid: one period apart, at its stable offset', async () => {
  const checks = [urlCheck('alpha', { frequencySeconds: 1 }), urlCheck('beta', { frequencySeconds: 2 })]
  const source = createLocalSource({ checks })
  const stop = new AbortController()
  const jobs: Job[] = []
  for await (const job of source.jobs(stop.signal)) {
    jobs.push(job)
    if (jobs.filter((j) => j.check.logicalId === 'beta').length === 2) stop.abort()
  }
  for (const check of checks) {
    const period = check.frequencySeconds * 1000
    const due = jobs.filter((j) => j.check.logicalId === check.logicalId).map((j) => j.dueAt)
    expect(due.length).toBeGreaterThanOrEqual(2)
    for (const d of due) expect(d % period).toBe(stableOffsetMs(check.logicalId, period))
    for (let i = 1; i < due.length; i++) expect(due[i]! - due[i - 1]!).toBe(period)
  }
  expect(new Set(jobs.map((j) => j.id)).size).toBe(jobs.length)
  expect(jobs.every((j) => j.attempt === 1 && !j.testSession)).toBe(true)
})

it('stays open with no checks until stopped', async () => {
  const stop = new AbortController()
  setTimeout(() => stop.abort(), 50)
  const jobs: Job[] = []
  for await (const job of createLocalSource({ checks: [] }).jobs(stop.signal)) jobs.push(job)
  expect(jobs).toEqual([])
  expect(stop.signal.aborted).toBe(true)
})
