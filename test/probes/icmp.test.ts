// The ICMP probe against loopback with the real system ping (iputils-ping).

import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import type { IcmpCheck } from '../../src/model/checks.ts'
import type { ProbeContext } from '../../src/model/probe.ts'
import { createIcmpProbe, type IcmpDetails } from '../../src/probes/icmp.ts'
import { capabilityHasNetRaw, detectIcmpCapability, groupInRange } from '../../src/probes/icmp-capability.ts'
import { baseFields } from '../helpers/definitions.ts'

function icmpCheck(request: Partial<IcmpCheck['request']> = {}, rest: Partial<IcmpCheck> = {}): IcmpCheck {
  return {
    type: 'ICMP',
    ...baseFields('icmp-loopback', 'ICMP loopback'),
    request: { hostname: '127.0.0.1', ipFamily: 'IPv4', pingCount: 3, assertions: [], ...request },
    degradedPacketLossThreshold: 10,
    maxPacketLossThreshold: 20,
    ...rest,
  }
}

function context(signal: AbortSignal = AbortSignal.timeout(60_000)): ProbeContext {
  return { signal, log: pino({ level: 'silent' }), runDir: '/tmp/outpost-icmp-test', testSession: true }
}

const probe = createIcmpProbe()
const icmpOf = (details: Record<string, unknown> | undefined): IcmpDetails => details?.icmp as IcmpDetails

describe('ICMP probe on loopback', () => {
  it('pings 127.0.0.1 and reports every figure as a number', async () => {
    const outcome = await probe(icmpCheck({ pingCount: 5 }), context())
    expect(outcome.status).toBe('passed')
    expect(outcome.error).toBeUndefined()
    const icmp = icmpOf(outcome.details)
    expect(icmp).toMatchObject({ family: 'IPv4', address: '127.0.0.1', packetsSent: 5, packetsReceived: 5 })
    expect(icmp.packetLoss).toBe(0)
    expect(icmp.rtts).toHaveLength(5)
    for (const key of ['min', 'avg', 'max', 'stdDev'] as const) expect(typeof icmp[key]).toBe('number')
    expect(icmp.min!).toBeLessThanOrEqual(icmp.avg!)
    expect(icmp.avg!).toBeLessThanOrEqual(icmp.max!)
    expect(outcome.responseTimeMs).toBe(icmp.avg)
  })

  it('pings ::1 over IPv6', async () => {
    const outcome = await probe(icmpCheck({ hostname: '::1', ipFamily: 'IPv6' }), context())
    expect(outcome.status).toBe('passed')
    expect(icmpOf(outcome.details)).toMatchObject({ family: 'IPv6', address: '::1', packetsReceived: 3 })
  })

  it('evaluates LATENCY and PACKET_LOSS assertions against the measured figures', async () => {
    const outcome = await probe(
      icmpCheck({
        assertions: [
          { source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '1000' },
          { source: 'LATENCY', property: 'max', comparison: 'GREATER_THAN', target: '5000' },
          { source: 'PACKET_LOSS', property: '', comparison: 'LESS_THAN', target: '1' },
        ],
      }),
      context(),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('ASSERTION_FAILED')
    expect(outcome.error?.message).toContain(`LATENCY 'max' GREATER_THAN "5000" failed`)
    const icmp = icmpOf(outcome.details)
    expect(outcome.assertions.map((a) => a.passed)).toEqual([true, false, true])
    expect(outcome.assertions[1]?.actual).toBe(icmp.max)
    expect(outcome.assertions[2]?.actual).toBe(0)
  })

  it('names the value and what is allowed for an assertion it cannot evaluate', async () => {
    const outcome = await probe(
      icmpCheck({
        assertions: [
          { source: 'LATENCY', property: 'median', comparison: 'LESS_THAN', target: '10' },
          { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200' },
        ],
      }),
      context(),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error).toEqual({
      code: 'ASSERTION_FAILED',
      message: "LATENCY property 'median' is not supported (allowed: avg, min, max, stdDev) (and 1 more)",
    })
    expect(outcome.assertions.map((a) => a.passed)).toEqual([false, false])
  })

  it('accepts the shared comparisons beyond the four basic ones', async () => {
    const outcome = await probe(
      icmpCheck({
        assertions: [
          { source: 'LATENCY', property: 'min', comparison: 'GREATER_THAN_OR_EQUAL', target: '0' },
          { source: 'PACKET_LOSS', property: '', comparison: 'LESS_THAN_OR_EQUAL', target: '0' },
          { source: 'LATENCY', property: 'stdDev', comparison: 'NOT_NULL', target: '' },
        ],
      }),
      context(),
    )
    expect(outcome.status).toBe('passed')
    expect(outcome.assertions.every((a) => a.passed)).toBe(true)
  })

  it('refuses a bad check without running ping, naming the field', async () => {
    const cases: [IcmpCheck, string][] = [
      [icmpCheck({ pingCount: 0 }), 'request.pingCount is 0'],
      [icmpCheck({ pingCount: 51 }), 'request.pingCount is 51'],
      [icmpCheck({ hostname: '-f' }), 'request.hostname "-f"'],
      [icmpCheck({ hostname: '127.0.0.1 -f' }), 'request.hostname "127.0.0.1 -f"'],
      [icmpCheck({}, { maxPacketLossThreshold: 101 }), 'maxPacketLossThreshold is 101'],
    ]
    for (const [check, message] of cases) {
      const outcome = await probe(check, context())
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('INVALID_CHECK')
      expect(outcome.error?.message).toContain(message)
      expect(outcome.details).toBeUndefined()
    }
  })

  it('turns a missing ping into a failed result that says how to install it', async () => {
    const outcome = await createIcmpProbe({ command: '/nonexistent/ping' })(icmpCheck(), context())
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('PING_NOT_FOUND')
    expect(outcome.error?.message).toContain('apt-get install iputils-ping')
  })

  it('stops ping at the timeout and reports it', async () => {
    const outcome = await probe(icmpCheck({ pingCount: 50 }), context(AbortSignal.timeout(500)))
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('TIMEOUT')
    // A ping that ran to its end prints a summary; a killed one never does.
    expect(icmpOf(outcome.details).packetsSent).toBeNull()
  })
})

describe('ICMP capability detection', () => {
  it('finds the system ping and proves it works with one echo to 127.0.0.1', async () => {
    const capability = await detectIcmpCapability()
    expect(capability.available).toBe(true)
    expect(capability.pingPath).toMatch(/\/ping$/)
    expect(['root', 'cap_net_raw', 'setuid', 'ping_group_range']).toContain(capability.method)
    if (process.getuid?.() === 0) expect(capability.method).toBe('root')
  })

  it('reports a missing ping with the install hint', async () => {
    const capability = await detectIcmpCapability({ path: '/nonexistent' })
    expect(capability).toMatchObject({ available: false, method: 'missing', pingPath: null })
    expect(capability.message).toContain('apt-get install iputils-ping')
  })

  it('reads CAP_NET_RAW from /proc status and group ranges', () => {
    expect(capabilityHasNetRaw('CapEff:\t0000000000002000\n', 'CapEff')).toBe(true)
    expect(capabilityHasNetRaw('CapEff:\t0000000000000000\n', 'CapEff')).toBe(false)
    expect(capabilityHasNetRaw('CapEff:\t000001ffffffffff\n', 'CapEff')).toBe(true)
    expect(groupInRange('1\t0\n', [0, 1, 65534])).toBe(false)
    expect(groupInRange('0\t2147483647\n', [65534])).toBe(true)
    expect(groupInRange('100 200', [99, 201])).toBe(false)
  })
})
