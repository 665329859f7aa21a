import { describe, expect, it } from 'vitest'
import { RetryStrategyBuilder, UrlMonitor, type UrlMonitorProps } from '../../src/index.ts'
import { problemsOf } from './problems.ts'

const withStrategy = (retryStrategy: unknown) =>
  new UrlMonitor('site', {
    name: 'Site',
    request: { url: 'https://example.test/' },
    retryStrategy,
  } as UrlMonitorProps)

describe('RetryStrategyBuilder', () => {
  it("builds Checkly's strategies with Checkly's defaults", () => {
    expect(RetryStrategyBuilder.fixedStrategy()).toEqual({
      type: 'FIXED',
      baseBackoffSeconds: 60,
      maxRetries: 2,
      maxDurationSeconds: 600,
      sameRegion: true,
    })
    expect(
      RetryStrategyBuilder.exponentialStrategy({ baseBackoffSeconds: 5, sameRegion: false }),
    ).toMatchObject({
      type: 'EXPONENTIAL',
      baseBackoffSeconds: 5,
      sameRegion: false,
    })
    expect(RetryStrategyBuilder.noRetries()).toMatchObject({ type: 'NONE', maxRetries: 0 })
  })

  it('takes maxRetries 0..10 and refuses 11', () => {
    expect(problemsOf(withStrategy(RetryStrategyBuilder.fixedStrategy({ maxRetries: 0 })))).toEqual([])
    expect(problemsOf(withStrategy(RetryStrategyBuilder.fixedStrategy({ maxRetries: 10 })))).toEqual([])
    expect(problemsOf(withStrategy(RetryStrategyBuilder.fixedStrategy({ maxRetries: 11 })))).toEqual([
      'retryStrategy.maxRetries: must be an integer from 0 to 10, got 11',
    ])
  })

  it('takes maxDurationSeconds up to 600 and refuses more', () => {
    expect(
      problemsOf(withStrategy(RetryStrategyBuilder.linearStrategy({ maxDurationSeconds: 600 }))),
    ).toEqual([])
    expect(
      problemsOf(withStrategy(RetryStrategyBuilder.linearStrategy({ maxDurationSeconds: 601 }))),
    ).toEqual(['retryStrategy.maxDurationSeconds: must be an integer from 0 to 600 s, got 601'])
  })

  it('refuses a bad type, backoff and sameRegion in hand-written strategies', () => {
    expect(
      problemsOf(withStrategy({ type: 'RANDOM', baseBackoffSeconds: -1, sameRegion: 'yes', extra: 1 })),
    ).toEqual([
      'retryStrategy.extra: unknown option; known: type, baseBackoffSeconds, maxRetries, maxDurationSeconds, sameRegion',
      'retryStrategy.type: must be one of NONE, FIXED, LINEAR, EXPONENTIAL, got "RANDOM"',
      'retryStrategy.baseBackoffSeconds: must be an integer from 0 to 600 s, got -1',
      'retryStrategy.sameRegion: must be true or false, got "yes"',
    ])
    expect(problemsOf(withStrategy({}))).toEqual([
      'retryStrategy.type: is required; one of NONE, FIXED, LINEAR, EXPONENTIAL',
    ])
  })
})
