import { describe, expect, it } from 'vitest'
import { derivePingToken } from '../../src/constructs/heartbeat-monitor.ts'
import { HeartbeatMonitor, type HeartbeatMonitorProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

const base: HeartbeatMonitorProps = { name: 'Backup', period: 1, periodUnit: 'hours' }
const monitor = (props: Record<string, unknown>, id = 'backup') =>
  new HeartbeatMonitor(id, { ...base, ...props } as HeartbeatMonitorProps)

describe('HeartbeatMonitor', () => {
  it('runs on its period, grace 0 by default, with a token derived from the logicalId', () => {
    const check = monitor({})
    expect(problemsOf(check)).toEqual([])
    const definition = check.toDefinition(contextOf())
    expect(definition).toMatchObject({
      type: 'HEARTBEAT',
      frequencySeconds: 3600,
      period: 1,
      periodUnit: 'hours',
      grace: 0,
      graceUnit: 'seconds',
    })
    expect(definition.pingToken).toMatch(/^[0-9a-f]{32}$/)
    // Stable across loads, distinct across checks.
    expect(monitor({}).toDefinition(contextOf()).pingToken).toBe(definition.pingToken)
    expect(monitor({}, 'other').toDefinition(contextOf()).pingToken).not.toBe(definition.pingToken)
    expect(definition.pingToken).toBe(derivePingToken('backup'))
  })

  it('keeps a given ping token and grace', () => {
    const definition = monitor({
      pingToken: 'my-own-token_123',
      grace: 10,
      graceUnit: 'minutes',
    }).toDefinition(contextOf())
    expect(definition).toMatchObject({ pingToken: 'my-own-token_123', grace: 10, graceUnit: 'minutes' })
  })

  it('takes periods from 30 seconds to 365 days and refuses shorter or longer ones', () => {
    expect(problemsOf(monitor({ period: 30, periodUnit: 'seconds' }))).toEqual([])
    expect(problemsOf(monitor({ period: 365, periodUnit: 'days' }))).toEqual([])
    expect(problemsOf(monitor({ period: 29, periodUnit: 'seconds' }))).toEqual([
      'period: must be from 30 seconds to 365 days, got 29 seconds',
    ])
    expect(problemsOf(monitor({ period: 366, periodUnit: 'days' }))).toEqual([
      'period: must be from 30 seconds to 365 days, got 366 days',
    ])
  })

  it('takes grace up to 365 days and refuses more', () => {
    expect(problemsOf(monitor({ grace: 365, graceUnit: 'days' }))).toEqual([])
    expect(problemsOf(monitor({ grace: 8761, graceUnit: 'hours' }))).toEqual([
      'grace: must be at most 365 days, got 8761 hours',
    ])
  })

  it('needs a period with its unit, and a unit with grace', () => {
    expect(problemsOf(new HeartbeatMonitor('backup', { name: 'Backup' } as HeartbeatMonitorProps))).toEqual([
      'period: is required',
    ])
    expect(problemsOf(monitor({ periodUnit: undefined }))).toEqual([
      'periodUnit: is required with period; one of seconds, minutes, hours, days',
    ])
    expect(problemsOf(monitor({ periodUnit: 'weeks' }))).toEqual([
      'periodUnit: must be one of seconds, minutes, hours, days, got "weeks"',
    ])
    expect(problemsOf(monitor({ grace: 5 }))).toEqual([
      'graceUnit: is required with grace; one of seconds, minutes, hours, days',
    ])
    expect(problemsOf(monitor({ period: 1.5 }))).toEqual(['period: must be a whole number, got 1.5'])
  })

  it('refuses a malformed ping token and a frequency', () => {
    expect(problemsOf(monitor({ pingToken: 'short' }))).toEqual([
      'pingToken: must be 8 to 128 letters, digits, _ or -',
    ])
    expect(problemsOf(monitor({ pingToken: 'has/slash/in/it' }))).toEqual([
      'pingToken: must be 8 to 128 letters, digits, _ or -',
    ])
    expect(problemsOf(monitor({ frequency: 'EVERY_1M' }))).toEqual([
      'frequency: heartbeat monitors take no frequency; they expect a ping every period',
    ])
  })
})
