import { describe, expect, it } from 'vitest'
import { backoffDelayMs } from '../../../src/agent/remote/backoff.ts'
import { normaliseCheck } from '../../../src/agent/remote/remote-source.ts'

describe('backoff with full jitter', () => {
  const policy = { baseMs: 500, maxMs: 30_000 }
  it('grows exponentially up to the cap, scaled by the random draw', () => {
    expect([1, 2, 3, 4, 7, 8, 50].map((n) => backoffDelayMs(n, policy, () => 1))).toEqual([
      500, 1000, 2000, 4000, 30_000, 30_000, 30_000,
    ])
    expect(backoffDelayMs(5, policy, () => 0)).toBe(0)
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(1000)
  })
})

describe('checks from the hub', () => {
  it('get what the scheduler relies on; test-session runs are never retried', () => {
    const sparse = normaliseCheck({ type: 'URL', logicalId: 'a', name: 'a' }, true)
    expect(sparse).toMatchObject({
      activated: true,
      tags: [],
      environmentVariables: [],
      retryStrategy: { type: 'NONE' },
    })
    const retried = normaliseCheck(
      {
        type: 'URL',
        logicalId: 'b',
        name: 'b',
        retryStrategy: {
          type: 'FIXED',
          baseBackoffSeconds: 5,
          maxRetries: 2,
          maxDurationSeconds: 60,
          sameRegion: true,
        },
      },
      true,
    )
    expect(retried.retryStrategy).toMatchObject({ type: 'NONE', maxRetries: 0 })
    const scheduled = normaliseCheck(
      {
        type: 'URL',
        logicalId: 'c',
        name: 'c',
        retryStrategy: {
          type: 'FIXED',
          baseBackoffSeconds: 5,
          maxRetries: 2,
          maxDurationSeconds: 60,
          sameRegion: true,
        },
      },
      false,
    )
    expect(scheduled.retryStrategy).toMatchObject({ type: 'FIXED', maxRetries: 2 })
  })
})
