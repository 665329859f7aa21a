// Several job sources as one: `outpost start` runs its local schedule and takes jobs from its
// embedded hub (test sessions, deployed checks) at the same time. Each result is acknowledged to
// the source its job came from.

import type { Job } from '../model/job.ts'
import type { JobSource } from './job-source.ts'

export function mergeSources(sources: readonly JobSource[]): JobSource {
  const origin = new Map<string, JobSource>()
  return {
    async *jobs(signal) {
      const iterators = sources.map((s) => s.jobs(signal)[Symbol.asyncIterator]())
      const next = (i: number) => iterators[i]!.next().then((step) => ({ i, step }))
      const pending = new Map<number, Promise<{ i: number; step: IteratorResult<Job> }>>()
      for (const i of iterators.keys()) pending.set(i, next(i))
      while (pending.size > 0) {
        const { i, step } = await Promise.race(pending.values())
        if (step.done) {
          pending.delete(i)
          continue
        }
        pending.set(i, next(i))
        origin.set(step.value.id, sources[i]!)
        yield step.value
      }
    },
    async ack(job, result) {
      const source = origin.get(job.id)
      origin.delete(job.id)
      await source?.ack(job, result)
    },
  }
}
