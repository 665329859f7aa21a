// Checkly's RetryStrategyBuilder: how a failed run is retried before it counts as failed.

import type { RetryStrategy, RetryStrategyType } from '../model/checks.ts'
import type { Report } from './diagnostics.ts'
import { checkBoolean, checkInteger, checkKnownKeys, checkOneOf, isRecord, show } from './values.ts'

export interface RetryStrategyOptions {
  /** Wait before the first retry (default 60). Linear and exponential strategies grow it. */
  baseBackoffSeconds?: number
  /** 0..10 (default 2). */
  maxRetries?: number
  /** No retry starts later than this after the first attempt, at most 600 (default 600). */
  maxDurationSeconds?: number
  /** Retry in the same location (default true). */
  sameRegion?: boolean
}

export const RETRY_LIMITS = { maxRetries: 10, maxDurationSeconds: 600, baseBackoffSeconds: 600 } as const

const DEFAULTS = { baseBackoffSeconds: 60, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true } as const

function strategy(type: RetryStrategyType, options: RetryStrategyOptions = {}): RetryStrategy {
  return {
    type,
    baseBackoffSeconds: options.baseBackoffSeconds ?? DEFAULTS.baseBackoffSeconds,
    maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
    maxDurationSeconds: options.maxDurationSeconds ?? DEFAULTS.maxDurationSeconds,
    sameRegion: options.sameRegion ?? DEFAULTS.sameRegion,
  }
}

export const RetryStrategyBuilder = {
  /** The same wait before every retry. */
  fixedStrategy: (options?: RetryStrategyOptions): RetryStrategy => strategy('FIXED', options),
  /** Waits of base, 2 x base, 3 x base, ... */
  linearStrategy: (options?: RetryStrategyOptions): RetryStrategy => strategy('LINEAR', options),
  /** Waits of base, base^2, base^3, ... (Checkly's definition). */
  exponentialStrategy: (options?: RetryStrategyOptions): RetryStrategy => strategy('EXPONENTIAL', options),
  noRetries: (): RetryStrategy => ({
    type: 'NONE',
    baseBackoffSeconds: 0,
    maxRetries: 0,
    maxDurationSeconds: 0,
    sameRegion: true,
  }),
} as const

const TYPES: readonly RetryStrategyType[] = ['NONE', 'FIXED', 'LINEAR', 'EXPONENTIAL']

/** Retry strategies may be written by hand in JavaScript, so the builder's output is checked too. */
export function validateRetryStrategy(report: Report, property: string, value: unknown): boolean {
  if (value === undefined) return true
  if (!isRecord(value)) {
    report(property, `must be built with RetryStrategyBuilder, got ${show(value)}`)
    return false
  }
  let problems = 0
  const counting: Report = (p, r) => {
    problems++
    report(p, r)
  }
  checkKnownKeys(counting, property, value, [
    'type',
    'baseBackoffSeconds',
    'maxRetries',
    'maxDurationSeconds',
    'sameRegion',
  ])
  if (value.type === undefined) counting(`${property}.type`, `is required; one of ${TYPES.join(', ')}`)
  checkOneOf(counting, `${property}.type`, value.type, TYPES)
  checkInteger(
    counting,
    `${property}.baseBackoffSeconds`,
    value.baseBackoffSeconds,
    0,
    RETRY_LIMITS.baseBackoffSeconds,
    's',
  )
  checkInteger(counting, `${property}.maxRetries`, value.maxRetries, 0, RETRY_LIMITS.maxRetries)
  checkInteger(
    counting,
    `${property}.maxDurationSeconds`,
    value.maxDurationSeconds,
    0,
    RETRY_LIMITS.maxDurationSeconds,
    's',
  )
  checkBoolean(counting, `${property}.sameRegion`, value.sameRegion)
  return problems === 0
}

/** Fills what a hand-written strategy left out; NONE when there is none at all. */
export function completeRetryStrategy(value: RetryStrategy | undefined): RetryStrategy {
  if (value === undefined || value.type === 'NONE') return RetryStrategyBuilder.noRetries()
  return strategy(value.type, value)
}
