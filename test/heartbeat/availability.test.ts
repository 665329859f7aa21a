// The availability figures the hub serves, from one pure function.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type AvailabilityEvent, availability } from '../../src/heartbeat/availability.ts'

const H = 3_600_000
const end = Date.parse('2026-03-02T00:00:00.000Z')
const start = end - 24 * H

const at = (offsetHours: number, status: AvailabilityEvent['status']): AvailabilityEvent => ({
  time: start + offsetHours * H,
  status,
})

describe('availability', () => {
  it('gives the success percentage of the current and the previous window and the current count', () => {
    const events = [
      at(-20, 'passed'),
      at(-10, 'failed'),
      at(1, 'passed'),
      at(2, 'passed'),
      at(3, 'degraded'),
      at(23, 'failed'),
    ]
    expect(availability(events, start, end)).toEqual({
      successRatio: { previousPeriod: 50, currentPeriod: 75 },
      totalEntitiesCurrentPeriod: 4,
    })
  })

  it('puts an event at startTime in the current window only, and ignores events outside both', () => {
    const events = [at(0, 'failed'), at(-24, 'passed'), at(-24.001, 'failed'), at(24.001, 'failed')]
    expect(availability(events, start, end)).toEqual({
      successRatio: { previousPeriod: 100, currentPeriod: 0 },
      totalEntitiesCurrentPeriod: 1,
    })
  })

  it('is null when neither window holds a result, 0 for an empty window otherwise', () => {
    expect(availability([], start, end)).toBeNull()
    expect(availability([at(-48.5, 'passed')], start, end)).toBeNull()
    expect(availability([at(-1, 'passed')], start, end)).toEqual({
      successRatio: { previousPeriod: 100, currentPeriod: 0 },
      totalEntitiesCurrentPeriod: 0,
    })
  })

  it('rounds to three decimals', () => {
    const events = [at(1, 'passed'), at(2, 'passed'), at(3, 'failed')]
    expect(availability(events, start, end)?.successRatio.currentPeriod).toBe(66.667)
  })

  it('refuses a window that ends before it starts', () => {
    expect(() => availability([], end, start)).toThrow(/startTime .* must be a time before endTime/)
  })

  it('keeps every figure within 0..100 and counts each current event once', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            time: fc.integer({ min: start - 30 * H, max: end + 5 * H }),
            status: fc.constantFrom<AvailabilityEvent['status']>('passed', 'degraded', 'failed'),
          }),
        ),
        (events) => {
          const result = availability(events, start, end)
          const current = events.filter((e) => e.time >= start && e.time <= end)
          const previous = events.filter((e) => e.time >= start - 24 * H && e.time < start)
          if (current.length === 0 && previous.length === 0) return result === null
          if (result === null) return false
          const { previousPeriod, currentPeriod } = result.successRatio
          return (
            result.totalEntitiesCurrentPeriod === current.length &&
            currentPeriod >= 0 &&
            currentPeriod <= 100 &&
            previousPeriod >= 0 &&
            previousPeriod <= 100
          )
        },
      ),
    )
  })
})
