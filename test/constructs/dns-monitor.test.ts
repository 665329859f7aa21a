import { describe, expect, it } from 'vitest'
import { DnsAssertionBuilder, DnsMonitor, type DnsMonitorProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

const base: DnsMonitorProps = { name: 'Name', request: { query: 'app.example.test' } }
const monitor = (props: Record<string, unknown>) =>
  new DnsMonitor('name', { ...base, ...props } as DnsMonitorProps)
const withRequest = (request: Record<string, unknown>) =>
  monitor({ request: { ...base.request, ...request } })

describe('DnsMonitor', () => {
  it('defaults to an A query over UDP port 53 at the OS resolver, 500 / 1000 ms', () => {
    const check = monitor({})
    expect(problemsOf(check)).toEqual([])
    const definition = check.toDefinition(contextOf())
    expect(definition.request).toEqual({
      query: 'app.example.test',
      recordType: 'A',
      port: 53,
      protocol: 'UDP',
      assertions: [],
    })
    expect([definition.degradedResponseTime, definition.maxResponseTime]).toEqual([500, 1000])
  })

  it('keeps a name server, port, protocol, record type and assertions', () => {
    const check = withRequest({
      recordType: 'AAAA',
      nameServer: '127.0.0.1',
      port: 5353,
      protocol: 'TCP',
      assertions: [
        DnsAssertionBuilder.responseCode().equals('NOERROR'),
        DnsAssertionBuilder.textAnswer().contains('::1'),
      ],
    })
    expect(problemsOf(check)).toEqual([])
    expect(check.toDefinition(contextOf()).request).toMatchObject({
      recordType: 'AAAA',
      nameServer: '127.0.0.1',
      port: 5353,
      protocol: 'TCP',
    })
  })

  it('accepts every listed record type and refuses others', () => {
    for (const recordType of ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'HTTPS']) {
      expect(problemsOf(withRequest({ recordType }))).toEqual([])
    }
    expect(problemsOf(withRequest({ recordType: 'PTR' }))).toEqual([
      'request.recordType: must be one of A, AAAA, CNAME, MX, NS, TXT, SOA, HTTPS, got "PTR"',
    ])
  })

  it('refuses a bad protocol, port, query and name server', () => {
    expect(
      problemsOf(withRequest({ protocol: 'DOH', port: 0, query: 'a b', nameServer: 'dns://x' })),
    ).toEqual([
      'request.query: must be a hostname or an IP address, got "a b"',
      'request.nameServer: must be a hostname or an IP address, got "dns://x"',
      'request.port: must be an integer from 1 to 65535, got 0',
      'request.protocol: must be one of UDP, TCP, got "DOH"',
    ])
  })

  it('caps both response times at 5000 ms and keeps degraded at or below max', () => {
    expect(problemsOf(monitor({ degradedResponseTime: 5000, maxResponseTime: 5000 }))).toEqual([])
    expect(problemsOf(monitor({ maxResponseTime: 5001 }))).toEqual([
      'maxResponseTime: must be an integer from 0 to 5000 ms, got 5001',
    ])
    expect(problemsOf(monitor({ degradedResponseTime: 1500 }))).toEqual([
      'degradedResponseTime: must not exceed maxResponseTime (1000 ms), got 1500 ms',
    ])
  })
})
