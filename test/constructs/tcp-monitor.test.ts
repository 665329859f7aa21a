import { describe, expect, it } from 'vitest'
import { TcpAssertionBuilder, TcpMonitor, type TcpMonitorProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

const base: TcpMonitorProps = { name: 'Port', request: { hostname: '127.0.0.1', port: 8081 } }
const monitor = (props: Record<string, unknown>) =>
  new TcpMonitor('port', { ...base, ...props } as TcpMonitorProps)
const withRequest = (request: Record<string, unknown>) =>
  monitor({ request: { ...base.request, ...request } })

describe('TcpMonitor', () => {
  it('defaults to 4000 / 5000 ms and IPv4', () => {
    const check = monitor({})
    expect(problemsOf(check)).toEqual([])
    const definition = check.toDefinition(contextOf())
    expect(definition.request).toEqual({
      hostname: '127.0.0.1',
      port: 8081,
      ipFamily: 'IPv4',
      assertions: [],
    })
    expect([definition.degradedResponseTime, definition.maxResponseTime]).toEqual([4000, 5000])
  })

  it('keeps data and assertions', () => {
    const check = withRequest({
      data: 'PING\n',
      assertions: [TcpAssertionBuilder.responseData().contains('PONG')],
    })
    expect(problemsOf(check)).toEqual([])
    expect(check.toDefinition(contextOf()).request).toMatchObject({
      data: 'PING\n',
      assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' }],
    })
  })

  it('takes ports 1 and 65535 and refuses 0, 65536, a fraction and a missing port', () => {
    expect(problemsOf(withRequest({ port: 1 }))).toEqual([])
    expect(problemsOf(withRequest({ port: 65535 }))).toEqual([])
    expect(problemsOf(withRequest({ port: 0 }))).toEqual([
      'request.port: must be an integer from 1 to 65535, got 0',
    ])
    expect(problemsOf(withRequest({ port: 65536 }))).toEqual([
      'request.port: must be an integer from 1 to 65535, got 65536',
    ])
    expect(problemsOf(withRequest({ port: 80.5 }))).toEqual([
      'request.port: must be an integer from 1 to 65535, got 80.5',
    ])
    expect(problemsOf(withRequest({ port: undefined }))).toEqual(['request.port: is required (1..65535)'])
  })

  it('refuses a hostname that is not one', () => {
    expect(problemsOf(withRequest({ hostname: 'db.internal.test' }))).toEqual([])
    expect(problemsOf(withRequest({ hostname: '::1' }))).toEqual([])
    expect(problemsOf(withRequest({ hostname: 'http://db:5432' }))).toEqual([
      'request.hostname: must be a hostname or an IP address, got "http://db:5432"',
    ])
    expect(problemsOf(withRequest({ hostname: '' }))).toEqual(['request.hostname: must not be empty'])
  })

  it('caps both response times at 5000 ms and keeps degraded at or below max', () => {
    expect(problemsOf(monitor({ degradedResponseTime: 5000, maxResponseTime: 5000 }))).toEqual([])
    expect(problemsOf(monitor({ degradedResponseTime: 5001, maxResponseTime: 5001 }))).toEqual([
      'degradedResponseTime: must be an integer from 0 to 5000 ms, got 5001',
      'maxResponseTime: must be an integer from 0 to 5000 ms, got 5001',
    ])
    expect(problemsOf(monitor({ degradedResponseTime: 3000, maxResponseTime: 2000 }))).toEqual([
      'degradedResponseTime: must not exceed maxResponseTime (2000 ms), got 3000 ms',
    ])
  })

  it('refuses URL assertions', () => {
    expect(
      problemsOf(
        withRequest({ assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] }),
      ),
    ).toEqual([
      'request.assertions[0].source: must be one of RESPONSE_DATA, RESPONSE_TIME for TCP checks, got "STATUS_CODE"',
    ])
  })
})
