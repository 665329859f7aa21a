// bench/soak found the agent's heap growing by about 2 KB a run: a listener left on each run's signal
// kept the run and its outcome alive for as long as the agent's stop signal lived. A run must leave
// no listener behind on the signal it was given, however it ends.

import { getEventListeners } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Executor } from '../../src/agent/executors.ts'
import { runJob } from '../../src/agent/run-job.ts'
import type { ProbeOutcome } from '../../src/model/probe.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { captureLogger } from '../helpers/capture-logger.ts'
import { urlCheck } from '../helpers/definitions.ts'

describe('a finished run leaves no listener on its signals', () => {
  let runsDir: string
  beforeAll(async () => {
    runsDir = await mkdtemp(path.join(tmpdir(), 'outpost-listeners-'))
  })
  afterAll(() => rm(runsDir, { recursive: true, force: true }))

  const outcomes: Record<string, (signal: AbortSignal) => Promise<ProbeOutcome>> = {
    passed: async () => ({ status: 'passed', assertions: [] }),
    failed: async () => ({ status: 'failed', error: { code: 'X', message: 'x' }, assertions: [] }),
    threw: async () => {
      throw new Error('executor bug')
    },
    'timed out': (signal) =>
      new Promise((resolve) =>
        signal.addEventListener(
          'abort',
          () => resolve({ status: 'failed', error: { code: 'ABORTED', message: 'stopped' }, assertions: [] }),
          { once: true },
        ),
      ),
  }

  it.each(Object.keys(outcomes))('%s', async (kind) => {
    const stop = new AbortController()
    let seen: AbortSignal | undefined
    const execute: Executor = (_check, ctx) => {
      seen = ctx.signal
      return outcomes[kind]!(ctx.signal)
    }
    const job = {
      id: `run-${kind.replace(' ', '-')}`,
      check: urlCheck('listeners', { timeoutSeconds: 1 }),
      dueAt: Date.now(),
      attempt: 1,
      testSession: false,
    }
    const deps = {
      execute,
      agent: { id: 'a', version: '0', flavor: 'full' as const },
      location: 'private',
      scrubber: createScrubber([]),
      log: captureLogger().log,
      runsDir,
      abortGraceMs: 100,
    }
    for (let i = 0; i < 3; i++) await runJob({ ...job, id: `${job.id}-${i}` }, stop.signal, deps)
    expect(seen).toBeDefined()
    expect(getEventListeners(seen!, 'abort')).toEqual([])
    // The agent's own stop signal, which lives as long as the agent, holds nothing of these runs.
    expect(getEventListeners(stop.signal, 'abort')).toEqual([])
  })
})
