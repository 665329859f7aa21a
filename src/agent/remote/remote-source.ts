// Jobs from the hub: register (flavor, check types, runtimes), then long-poll claims. A claimed job
// is leased to this agent; its lease is renewed while it runs and until its result has reached the
// hub (delivered()), so only an agent that vanished loses its job to another. The source holds no more
// light (URL, DNS, TCP, ICMP, heartbeat) and heavy (Playwright) jobs than the agent has slots for, so
// it never claims work it cannot
// start before the lease runs out. A refused API key ends the iteration with HubRejectedKeyError
// (the agent stops with that message); anything transient is retried with backoff and jitter.
// Nothing the hub sends is trusted (claimed-job.ts): an answer that is not {jobs: [...]} is retried
// like an outage; a broken job is not run, and is reported failed (INVALID_JOB) when it has a run id;
// the other jobs of its batch run as usual.

import {
  type CheckDefinition,
  type CheckType,
  isUptimeCheckType,
  timeoutSecondsOf,
} from '../../model/checks.ts'
import type { Job } from '../../model/job.ts'
import type { CheckResult } from '../../model/result.ts'
import type { Logger } from '../../telemetry/logger.ts'
import type { JobSource } from '../job-source.ts'
import { type BackoffPolicy, backoffDelayMs, DEFAULT_BACKOFF, pause } from './backoff.ts'
import { claimedJobsOf, type InvalidClaimedJob, parseClaimedJob, runIdOf } from './claimed-job.ts'
import { HubRefusedError, HubRejectedKeyError } from './errors.ts'
import type { HubClient } from './hub-client.ts'
import { invalidJobMessage, invalidJobResult } from './invalid-job-result.ts'

/** The most jobs the hub hands out per claim. */
const MAX_CLAIM = 100

export interface RemoteAgentIdentity {
  id: string
  version: string
  flavor: 'full' | 'uptime'
  location: string
  checkTypes: readonly string[]
  runtimes: readonly string[]
}

export interface RemoteSourceOptions {
  client: HubClient
  agent: RemoteAgentIdentity
  log: Logger
  /** Jobs claimed and not yet acknowledged, at most, of light and of heavy check types. */
  slots: { light: number; heavy: number }
  /** How long one claim waits at the hub for work (long-poll), 0..30. */
  waitSeconds?: number
  backoff?: BackoffPolicy
  now?: () => number
  /** Told before the iteration ends with a refused key, so the CLI can exit with that message. */
  onRejectedKey?: (error: HubRejectedKeyError) => void
  /**
   * Which of these run ids already have a result waiting in the spool (run before a restart): such a
   * job is held and its lease renewed until that result is delivered, not run a second time.
   */
  spooled?: (runIds: readonly string[]) => Promise<ReadonlySet<string>>
  /**
   * Where the failed result of a job that cannot run (a broken definition) goes: the result sink,
   * so the hub learns the run is over. Unset: such a job is only logged and its lease left to lapse.
   */
  reportInvalid?: (result: CheckResult) => Promise<void>
}

/** Fills what the scheduler relies on when the hub sent a sparse definition (a triggered session). */
export function normaliseCheck(check: Record<string, unknown>, testSession: boolean): CheckDefinition {
  const retry = (check.retryStrategy as CheckDefinition['retryStrategy'] | undefined) ?? {
    type: 'NONE',
    baseBackoffSeconds: 0,
    maxRetries: 0,
    maxDurationSeconds: 0,
    sameRegion: true,
  }
  return {
    activated: true,
    muted: false,
    tags: [],
    frequencySeconds: 600,
    locations: [],
    privateLocations: [],
    environmentVariables: [],
    ...check,
    // The lists a request may leave out are empty, not missing: probes iterate them.
    ...(isRequest(check.request) ? { request: { headers: [], assertions: [], ...check.request } } : {}),
    // A session reports what one run saw, as `outpost test` does.
    retryStrategy: testSession ? { ...retry, type: 'NONE', maxRetries: 0 } : retry,
  } as unknown as CheckDefinition
}

/** The longest delay setTimeout takes as given (a signed 32-bit count of milliseconds). */
const MAX_RENEWAL_DELAY_MS = 2 ** 31 - 1

/** What came instead of a lease, briefly: its kind and the start of any text. */
function describeAnswer(body: unknown): string {
  if (typeof body === 'string') return `text ${JSON.stringify(body.slice(0, 60))}`
  if (body === undefined || body === null) return 'nothing'
  return Array.isArray(body)
    ? 'an array'
    : `an object with ${Object.keys(body).slice(0, 5).join(', ') || 'no fields'}`
}

function isRequest(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export interface RemoteSource extends JobSource {
  /** Run ids claimed and not yet acknowledged. */
  held(): string[]
  /** The result of this run reached the hub: stop renewing its lease. */
  delivered(runId: string): void
}

export function createRemoteSource(options: RemoteSourceOptions): RemoteSource {
  const { client, agent, log } = options
  const backoff = options.backoff ?? DEFAULT_BACKOFF
  const now = options.now ?? Date.now
  const waitSeconds = options.waitSeconds ?? 20
  const renewals = new Map<string, NodeJS.Timeout>()
  // Claimed and not yet acknowledged by the scheduler: what counts against the slots.
  const running = new Map<string, 'light' | 'heavy'>()
  const classOf = (type: string): 'light' | 'heavy' =>
    isUptimeCheckType(type as CheckType) ? 'light' : 'heavy'
  const lightTypes = agent.checkTypes.filter((t) => classOf(t) === 'light')
  const heavyTypes = agent.checkTypes.filter((t) => classOf(t) === 'heavy')
  const free = (kind: 'light' | 'heavy'): number => {
    let used = 0
    for (const k of running.values()) if (k === kind) used += 1
    return (kind === 'light' ? lightTypes.length > 0 : heavyTypes.length > 0)
      ? Math.min(MAX_CLAIM, Math.max(0, options.slots[kind] - used))
      : 0
  }
  let capacityFreed: () => void = () => {}

  const alreadySpooled = async (runIds: readonly string[]): Promise<ReadonlySet<string>> => {
    if (options.spooled === undefined) return new Set()
    try {
      return await options.spooled(runIds)
    } catch (error) {
      // Running a job twice is harmless (the hub keeps one result per run id); dropping it is not.
      log.warn({ err: (error as Error).message }, 'could not look into the result spool; running the jobs')
      return new Set()
    }
  }

  const register = async (signal: AbortSignal): Promise<void> => {
    await client.json(
      'POST',
      '/v1/agent/register',
      {
        agentId: agent.id,
        flavor: agent.flavor,
        version: agent.version,
        location: agent.location,
        checkTypes: agent.checkTypes,
        runtimes: agent.runtimes,
      },
      signal,
    )
    log.info(
      { hub: client.baseUrl, location: agent.location, checkTypes: agent.checkTypes },
      `registered with the hub at ${client.baseUrl} as agent ${agent.id}`,
    )
  }

  const finished = (runId: string): void => {
    if (running.delete(runId)) capacityFreed()
  }

  const release = (runId: string): void => {
    finished(runId)
    const timer = renewals.get(runId)
    if (timer === undefined) return
    clearTimeout(timer)
    renewals.delete(runId)
  }

  const scheduleRenewal = (runId: string, leaseUntil: number, holdUntil: number): void => {
    if (now() > holdUntil) {
      // The scheduler never acknowledged it (a run of the same check was still going, so it was
      // skipped): let the lease lapse so the hub gives the job to someone else.
      log.warn({ runId }, `run ${runId} was held past its timeout without a result; releasing it`)
      release(runId)
      return
    }
    // Renew at half the remaining lease: a missed renewal still leaves time for the next one. Never
    // sooner than a second, never later than a Node timer can wait.
    const delay = Math.min(MAX_RENEWAL_DELAY_MS, Math.max(1000, (leaseUntil - now()) / 2))
    const timer = setTimeout(() => {
      client
        .json('POST', `/v1/agent/jobs/${encodeURIComponent(runId)}/lease`, { agentId: agent.id })
        .then((response) => {
          if (!renewals.has(runId)) return
          const renewed = (response.body as { leaseUntil?: unknown } | undefined)?.leaseUntil
          if (typeof renewed !== 'number' || !Number.isFinite(renewed)) {
            // A proxy's page or a broken hub: not a lease. Treated as a failed renewal, not trusted.
            log.warn(
              { runId },
              `the hub answered the lease renewal of run ${runId} without a leaseUntil time (got ${describeAnswer(response.body)}); trying again`,
            )
            scheduleRenewal(runId, now() + 2 * delay, holdUntil)
            return
          }
          scheduleRenewal(runId, renewed, holdUntil)
        })
        .catch((err: unknown) => {
          if (!renewals.has(runId)) return
          if (err instanceof HubRefusedError) {
            log.warn(
              { runId },
              `the hub no longer leases run ${runId} to this agent; its result is still delivered, and the hub keeps the first real result for the run (it replaces a JOB_EXPIRED record)`,
            )
            release(runId)
            return
          }
          log.warn({ runId, err: (err as Error).message }, 'lease renewal failed; trying again')
          scheduleRenewal(runId, now() + 2 * delay, holdUntil)
        })
    }, delay)
    timer.unref()
    renewals.set(runId, timer)
  }

  /**
   * A job that cannot run is not run. With a run id, its failed result (INVALID_JOB, naming the
   * field) goes the way every result goes, and its lease is held until that result is delivered,
   * so the job is not handed to another agent meanwhile; without one there is nothing to report.
   */
  const refuse = async (invalid: InvalidClaimedJob): Promise<void> => {
    const { runId } = invalid
    if (runId === undefined) {
      log.warn(
        { problems: invalid.problems },
        `job without a usable run id from the hub, skipped: ${invalid.problems.join('; ')}`,
      )
      return
    }
    const reported = options.reportInvalid !== undefined
    log.warn(
      { runId, checkId: invalid.checkId, problems: invalid.problems },
      `run ${runId}: ${invalidJobMessage(invalid.problems)}; ${reported ? 'reported to the hub as failed' : 'its lease is left to lapse'}`,
    )
    if (options.reportInvalid === undefined) return
    const result = invalidJobResult(
      { ...invalid, runId },
      {
        agent: { id: agent.id, version: agent.version, flavor: agent.flavor },
        location: agent.location,
        now: now(),
      },
    )
    try {
      scheduleRenewal(runId, invalid.leaseUntil ?? now(), now() + 600_000)
      await options.reportInvalid(result)
    } catch (error) {
      release(runId)
      log.error(
        { runId, err: (error as Error).message },
        `could not record the failed result of run ${runId}; the hub gives the job out again when its lease ends`,
      )
    }
  }

  const waitForCapacity = (signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (free('light') > 0 || free('heavy') > 0 || signal.aborted) {
        resolve()
        return
      }
      const done = (): void => {
        signal.removeEventListener('abort', done)
        resolve()
      }
      capacityFreed = done
      signal.addEventListener('abort', done, { once: true })
    })

  return {
    held: () => [...running.keys()],

    delivered(runId: string): void {
      release(runId)
    },

    async *jobs(signal: AbortSignal): AsyncGenerator<Job> {
      let registered = false
      let failures = 0
      while (!signal.aborted) {
        try {
          if (!registered) {
            await register(signal)
            registered = true
          }
          await waitForCapacity(signal)
          if (signal.aborted) return
          const response = await client.json(
            'POST',
            '/v1/agent/jobs/claim',
            {
              agentId: agent.id,
              groups: [
                ...(free('light') > 0 ? [{ checkTypes: lightTypes, max: free('light') }] : []),
                ...(free('heavy') > 0 ? [{ checkTypes: heavyTypes, max: free('heavy') }] : []),
              ],
              waitSeconds,
            },
            signal,
          )
          if (failures > 0) log.info({ hub: client.baseUrl }, 'the hub is reachable again')
          failures = 0
          const claimed = claimedJobsOf(response.body)
          const done = await alreadySpooled(
            claimed.map(runIdOf).filter((id): id is string => id !== undefined),
          )
          const seen = new Set<string>()
          for (const wire of claimed) {
            const runId = runIdOf(wire)
            // The same run twice (in this batch, or still held from an earlier one) runs once.
            if (runId !== undefined && (seen.has(runId) || renewals.has(runId))) {
              log.warn(
                { runId },
                `run ${runId} came twice from the hub (this agent holds it already); the copy is ignored`,
              )
              continue
            }
            if (runId !== undefined) seen.add(runId)
            const parsed = parseClaimedJob(wire, agent.checkTypes, normaliseCheck)
            if (!parsed.ok) {
              await refuse(parsed.value)
              continue
            }
            const { job, leaseUntil } = parsed.value
            const check = job.check
            // A run ends within its timeout (plus the agent's abort grace); ten minutes more is ample.
            const holdUntil = now() + (timeoutSecondsOf(check) + 600) * 1000
            if (done.has(job.id)) {
              log.info(
                { runId: job.id, checkId: check.logicalId },
                `run ${job.id} already has a result in the spool (from before a restart); delivering it instead of running the check again`,
              )
              scheduleRenewal(job.id, leaseUntil, holdUntil)
              continue
            }
            running.set(job.id, classOf(check.type))
            scheduleRenewal(job.id, leaseUntil, holdUntil)
            yield job
          }
        } catch (error) {
          if (signal.aborted) return
          if (error instanceof HubRejectedKeyError) {
            options.onRejectedKey?.(error)
            throw error
          }
          if (error instanceof HubRefusedError && error.status === 409) {
            registered = false
            continue
          }
          failures += 1
          const delay = backoffDelayMs(failures, backoff)
          log.warn(
            { err: (error as Error).message, retryInMs: delay, failures },
            `job claim failed (${(error as Error).message}); retrying in ${delay} ms`,
          )
          await pause(delay, signal)
        }
      }
    },

    async ack(job: Job, _result: CheckResult): Promise<void> {
      // The run is over; its lease is still renewed until the result reaches the hub.
      finished(job.id)
    },
  }
}
