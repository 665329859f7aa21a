import { expect, it } from 'vitest'
import type { JobSource } from '../../src/agent/job-source.ts'
import { mergeSources } from '../../src/agent/merged-source.ts'
import type { Job } from '../../src/model/job.ts'
import type { CheckResult } from '../../src/model/result.ts'
import { urlCheck } from '../helpers/definitions.ts'

function timedSource(name: string, delaysMs: number[], acks: string[]): JobSource {
  return {
    async *jobs() {
      for (const [i, delay] of delaysMs.entries()) {
        await new Promise((resolve) => setTimeout(resolve, delay))
        yield { id: `${name}-${i}`, check: urlCheck(name), dueAt: Date.now(), attempt: 1, testSession: false }
      }
    },
    ack: async (job) => {
      acks.push(`${name}:${job.id}`)
    },
  }
}

it('yields jobs from every source as they come, and acknowledges each to its own source', async () => {
  const acks: string[] = []
  const merged = mergeSources([timedSource('a', [10, 60], acks), timedSource('b', [30, 10], acks)])
  const seen: Job[] = []
  for await (const job of merged.jobs(new AbortController().signal)) {
    seen.push(job)
    await merged.ack(job, {} as CheckResult)
  }
  expect(seen.map((j) => j.id).sort()).toEqual(['a-0', 'a-1', 'b-0', 'b-1'])
  // Each source's own order is kept, and every ack went to the source the job came from.
  expect(seen.map((j) => j.id).filter((id) => id.startsWith('a'))).toEqual(['a-0', 'a-1'])
  expect(acks.sort()).toEqual(['a:a-0', 'a:a-1', 'b:b-0', 'b:b-1'])
})
