import type { Job } from '../model/job.ts'
import type { CheckResult } from '../model/result.ts'

/**
 * Where jobs come from: the local schedule of checks, or the hub. The scheduler sees only this.
 * `jobs` yields runs as they fall due and ends when the signal aborts; `ack` is told each result
 * (the hub source reports it; the local source has nothing to do).
 */
export interface JobSource {
  jobs(signal: AbortSignal): AsyncIterable<Job>
  ack(job: Job, result: CheckResult): Promise<void>
}
