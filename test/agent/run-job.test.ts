import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Executor } from '../../src/agent/executors.ts'
import { RunAborted, runJob } from '../../src/agent/run-job.ts'
import type { Job } from '../../src/model/job.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { captureLogger } from '../helpers/capture-logger.ts'
import { urlCheck } from '../helpers/definitions.ts'

const agent = { id: 'agent-1', version: '7.0.1', flavor: 'full' as const }

async function run(execute: Executor, job: Partial<Job> = {}, stop = new AbortController().signal) {
  const runsDir = await mkdtemp(path.join(tmpdir(), 'outpost-runs-'))
  return runJob(
    {
      id: 'run-1',
      check: urlCheck('c1', { timeoutSeconds: 1 }),
      dueAt: Date.now(),
      attempt: 1,
      testSession: false,
      ...job,
    },
    stop,
    {
      execute,
      agent,
      location: 'private',
      scrubber: createScrubber(['s3cr3t-value']),
      log: captureLogger().log,
      runsDir,
      abortGraceMs: 200,
    },
  )
}

describe('runJob', () => {
  it('turns an outcome into a CheckResult with identity, timing and agent facts', async () => {
    const result = await run(async (_check, ctx) => {
      expect(ctx.runDir).toMatch(/run-1$/)
      return { status: 'degraded', responseTimeMs: 12, assertions: [] }
    })
    expect(result).toMatchObject({
      id: 'run-1',
      checkId: 'c1',
      checkType: 'URL',
      name: 'URL c1',
      status: 'degraded',
      responseTimeMs: 12,
      location: 'private',
      attempt: 1,
      artifacts: [],
      agent,
    })
    expect(Date.parse(result.startedAt)).not.toBeNaN()
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('fails a run at its timeout when the executor honours the signal', async () => {
    const result = await run(
      (_check, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () =>
            resolve({ status: 'failed', error: { code: 'TIMEOUT', message: 'stopped' }, assertions: [] }),
          )
        }),
    )
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('TIMEOUT')
  })

  it('writes off an executor that ignores its signal, after the grace', async () => {
    const result = await run(() => new Promise(() => {}))
    expect(result.status).toBe('failed')
    expect(result.error).toEqual({
      code: 'TIMEOUT',
      message: 'check timed out after 1 s; the check did not stop when asked and was abandoned',
    })
  })

  it('fails a late success that came after the timeout', async () => {
    const result = await run(
      (_check, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve({ status: 'passed', assertions: [] }))
        }),
    )
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('TIMEOUT')
  })

  it('records a throwing executor as a failed run', async () => {
    const result = await run(async () => {
      throw new Error('boom')
    })
    expect(result.status).toBe('failed')
    expect(result.error).toEqual({ code: 'RUNNER_ERROR', message: 'the check could not be run: boom' })
  })

  it('names the shutdown when the agent aborts the run', async () => {
    const stop = new AbortController()
    const pending = run(() => new Promise(() => {}), { check: urlCheck('c1') }, stop.signal)
    stop.abort(new RunAborted('SHUTDOWN', 'the agent shut down'))
    const result = await pending
    expect(result.error?.code).toBe('SHUTDOWN')
    expect(result.error?.message).toMatch(/^the agent shut down/)
  })

  it('scrubs secrets from every string of the result', async () => {
    const result = await run(async () => ({
      status: 'failed',
      error: { code: 'X', message: 'token s3cr3t-value refused' },
      assertions: [],
      logs: [{ time: 't', level: 'info', message: 'sent s3cr3t-value' }],
      details: { nested: ['a s3cr3t-value b'] },
    }))
    expect(JSON.stringify(result)).not.toContain('s3cr3t-value')
    expect(result.error?.message).toBe('token ********* refused')
  })
})
