import { describe, expect, it } from 'vitest'
import { IcmpAssertionBuilder, IcmpMonitor, type IcmpMonitorProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

const base: IcmpMonitorProps = { name: 'Host', request: { hostname: '127.0.0.1' } }
const monitor = (props: Record<string, unknown>) =>
  new IcmpMonitor('host', { ...base, ...props } as IcmpMonitorProps)
const withRequest = (request: Record<string, unknown>) =>
  monitor({ request: { ...base.request, ...request } })

describe('IcmpMonitor', () => {
  it('defaults to 10 pings, degraded from 10% and failed from 20% loss', () => {
    const check = monitor({})
    expect(problemsOf(check)).toEqual([])
    const definition = check.toDefinition(contextOf())
    expect(definition.request).toEqual({
      hostname: '127.0.0.1',
      ipFamily: 'IPv4',
      pingCount: 10,
      assertions: [],
    })
    expect([definition.degradedPacketLossThreshold, definition.maxPacketLossThreshold]).toEqual([10, 20])
  })

  it('takes pingCount 1 and 50 and refuses 0 and 51', () => {
    expect(problemsOf(withRequest({ pingCount: 1 }))).toEqual([])
    expect(problemsOf(withRequest({ pingCount: 50 }))).toEqual([])
    expect(problemsOf(withRequest({ pingCount: 0 }))).toEqual([
      'request.pingCount: must be an integer from 1 to 50, got 0',
    ])
    expect(problemsOf(withRequest({ pingCount: 51 }))).toEqual([
      'request.pingCount: must be an integer from 1 to 50, got 51',
    ])
  })

  it('takes thresholds from 0 to 100 percent, degraded not above max', () => {
    expect(problemsOf(monitor({ degradedPacketLossThreshold: 0, maxPacketLossThreshold: 100 }))).toEqual([])
    expect(problemsOf(monitor({ degradedPacketLossThreshold: -1, maxPacketLossThreshold: 101 }))).toEqual([
      'degradedPacketLossThreshold: must be an integer from 0 to 100 %, got -1',
      'maxPacketLossThreshold: must be an integer from 0 to 100 %, got 101',
    ])
    expect(problemsOf(monitor({ degradedPacketLossThreshold: 50, maxPacketLossThreshold: 40 }))).toEqual([
      'degradedPacketLossThreshold: must not exceed maxPacketLossThreshold (40%), got 50%',
    ])
  })

  it('asserts on latency (avg, min, max, stdDev) and packet loss only', () => {
    const good = withRequest({
      assertions: [
        IcmpAssertionBuilder.latency('avg').lessThan(100),
        IcmpAssertionBuilder.latency('stdDev').lessThan(10),
        IcmpAssertionBuilder.packetLoss().equals(0),
      ],
    })
    expect(problemsOf(good)).toEqual([])
    const bad = withRequest({
      assertions: [
        { source: 'LATENCY', property: 'median', comparison: 'LESS_THAN', target: '1' },
        { source: 'PACKET_LOSS', property: '', comparison: 'CONTAINS', target: '1' },
        { source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: 'fast' },
      ],
    })
    expect(problemsOf(bad)).toEqual([
      'request.assertions[0].property: must be one of avg, min, max, stdDev, got "median"',
      'request.assertions[1].comparison: PACKET_LOSS is a number: use one of EQUALS, NOT_EQUALS, LESS_THAN, GREATER_THAN',
      'request.assertions[2].target: LATENCY compares with a number, got "fast"',
    ])
  })
})
