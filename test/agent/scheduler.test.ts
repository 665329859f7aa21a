import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Executor } from '../../src/agent/executors.ts'
import type { JobSource } from '../../src/agent/job-source.ts'
import { createLocalSource } from '../../src/agent/local-source.ts'
import { createQueues } from '../../src/agent/queues.ts'
import { runJob } from '../../src/agent/run-job.ts'
import { createScheduler } from '../../src/agent/scheduler.ts'
import type { CheckDefinition } from '../../src/model/checks.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { createAgentMetrics } from '../../src/telemetry/metrics.ts'
import { captureLogger } from '../helpers/capture-logger.ts'
import { urlCheck } from '../helpers/definitions.ts'
import { memorySink } from '../helpers/memory-sink.ts'

async function schedulerFor(source: JobSource, execute: Executor) {
  const runsDir = await mkdtemp(path.join(tmpdir(), 'outpost-sched-'))
  const metrics = createAgentMetrics({ version: 'test', flavor: 'full' })
  const sink = memorySink()
  const { log } = captureLogger()
  const scheduler = createScheduler({
    source,
    queues: createQueues({ uptimeConcurrency: 10, jobConcurrency: 1, metrics }),
    sink,
    metrics,
    log,
    run: (job, stop) =>
      runJob(job, stop, {
        execute,
        agent: { id: 'a', version: 'test', flavor: 'full' },
        location: 'private',
        scrubber: createScrubber([]),
        log,
        runsDir,
      }),
  })
  return { scheduler, sink, metrics }
}

/** A source that hands out the given checks once each, at once, then stays open. */
function onceSource(checks: CheckDefinition[]): JobSource {
  return {
    async *jobs(signal) {
      for (const [i, check] of checks.entries()) {
        yield { id: `run-${i}`, check, dueAt: Date.now(), attempt: 1, testSession: false }
      }
      await new Promise((resolve) => signal.addEventListener('abort', resolve))
    },
    ack: async () => {},
  }
}

describe('scheduler', () => {
  it('runs every activated check repeatedly', async () => {
    const checks = [urlCheck('a', { frequencySeconds: 1 }), urlCheck('b', { frequencySeconds: 1 })]
    const { scheduler, sink } = await schedulerFor(createLocalSource({ checks }), async () => ({
      status: 'passed',
      assertions: [],
    }))
    const stop = new AbortController()
    const pulling = scheduler.pull(stop.signal)
    const results = await sink.waitFor(6)
    stop.abort()
    await pulling
    for (const id of ['a', 'b'])
      expect(results.filter((r) => r.checkId === id).length).toBeGreaterThanOrEqual(2)
  })

  it('does not schedule deactivated checks', async () => {
    const checks = [
      urlCheck('on', { frequencySeconds: 1 }),
      urlCheck('off', { frequencySeconds: 1, activated: false }),
    ]
    const { scheduler, sink } = await schedulerFor(createLocalSource({ checks }), async () => ({
      status: 'passed',
      assertions: [],
    }))
    const stop = new AbortController()
    const pulling = scheduler.pull(stop.signal)
    await sink.waitFor(3)
    stop.abort()
    await pulling
    expect(new Set(sink.results.map((r) => r.checkId))).toEqual(new Set(['on']))
  })

  it('skips and counts a run whose previous run is still going', async () => {
    const check = urlCheck('slow', { frequencySeconds: 1 })
    let running = 0
    let maxRunning = 0
    const { scheduler, sink, metrics } = await schedulerFor(
      createLocalSource({ checks: [check] }),
      async () => {
        running++
        maxRunning = Math.max(maxRunning, running)
        await new Promise((resolve) => setTimeout(resolve, 2500))
        running--
        return { status: 'passed', assertions: [] }
      },
    )
    const stop = new AbortController()
    const pulling = scheduler.pull(stop.signal)
    await sink.waitFor(1)
    stop.abort()
    await pulling
    expect(maxRunning).toBe(1)
    const skipped = await metrics.registry.getSingleMetricAsString('outpost_skipped_runs_total')
    expect(skipped).toMatch(/outpost_skipped_runs_total\{type="URL"\} [1-9]/)
  })

  it('retries a failed run under the retry strategy, marking the attempts that will be retried', async () => {
    const check = urlCheck('flaky', {
      retryStrategy: {
        type: 'FIXED',
        baseBackoffSeconds: 0,
        maxRetries: 2,
        maxDurationSeconds: 60,
        sameRegion: true,
      },
    })
    let calls = 0
    const { scheduler, sink } = await schedulerFor(onceSource([check]), async () => {
      calls++
      return calls < 3
        ? { status: 'failed', error: { code: 'X', message: `attempt ${calls}` }, assertions: [] }
        : { status: 'passed', assertions: [] }
    })
    const stop = new AbortController()
    const pulling = scheduler.pull(stop.signal)
    const results = await sink.waitFor(3)
    stop.abort()
    await pulling
    expect(results.map((r) => [r.attempt, r.status, r.willRetry ?? false])).toEqual([
      [1, 'failed', true],
      [2, 'failed', true],
      [3, 'passed', false],
    ])
    expect(new Set(results.map((r) => r.id)).size).toBe(3)
  })

  it('stops retrying after maxRetries', async () => {
    const check = urlCheck('down', {
      retryStrategy: {
        type: 'LINEAR',
        baseBackoffSeconds: 0,
        maxRetries: 1,
        maxDurationSeconds: 60,
        sameRegion: true,
      },
    })
    const { scheduler, sink } = await schedulerFor(onceSource([check]), async () => ({
      status: 'failed',
      assertions: [],
    }))
    const stop = new AbortController()
    const pulling = scheduler.pull(stop.signal)
    await sink.waitFor(2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    stop.abort()
    await pulling
    expect(sink.results.map((r) => [r.attempt, r.willRetry ?? false])).toEqual([
      [1, true],
      [2, false],
    ])
  })
})
