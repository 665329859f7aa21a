import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nextDueAt, retryBackoffSeconds, stableOffsetMs } from '../../src/agent/schedule-math.ts'

describe('schedule math', () => {
  it('gives each check a stable offset inside its period', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 86_400_000 }), (id, period) => {
        const offset = stableOffsetMs(id, period)
        expect(offset).toBe(stableOffsetMs(id, period))
        expect(offset).toBeGreaterThanOrEqual(0)
        expect(offset).toBeLessThan(period)
      }),
    )
  })

  it('spreads many checks of one frequency over the period', () => {
    const period = 60_000
    const buckets = new Array(6).fill(0)
    for (let i = 0; i < 6000; i++) buckets[Math.floor(stableOffsetMs(`check-${i}`, period) / 10_000)]++
    for (const count of buckets) expect(count).toBeGreaterThan(800)
  })

  it('finds the first grid point at or after now', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 86_400_000 }),
        fc.nat(),
        (now, period, seed) => {
          const offset = seed % period
          const due = nextDueAt(now, period, offset)
          expect(due).toBeGreaterThanOrEqual(now)
          expect(due - now).toBeLessThan(period)
          expect((((due - offset) % period) + period) % period).toBe(0)
        },
      ),
    )
  })

  it('grows backoff by strategy type', () => {
    expect([1, 2, 3].map((n) => retryBackoffSeconds('FIXED', 5, n))).toEqual([5, 5, 5])
    expect([1, 2, 3].map((n) => retryBackoffSeconds('LINEAR', 5, n))).toEqual([5, 10, 15])
    expect([1, 2, 3].map((n) => retryBackoffSeconds('EXPONENTIAL', 5, n))).toEqual([5, 10, 20])
  })
})
