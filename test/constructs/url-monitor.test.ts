import { describe, expect, it } from 'vitest'
import { Frequency, UrlAssertionBuilder, UrlMonitor, type UrlMonitorProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

const base: UrlMonitorProps = { name: 'Site', request: { url: 'https://example.test/health' } }
const monitor = (props: Partial<UrlMonitorProps> & Record<string, unknown>) =>
  new UrlMonitor('site', { ...base, ...props } as UrlMonitorProps)
const withRequest = (request: Record<string, unknown>) =>
  monitor({ request: { ...base.request, ...request } as UrlMonitorProps['request'] })

describe('UrlMonitor', () => {
  it('fills Checkly defaults into the definition', () => {
    const check = monitor({})
    expect(problemsOf(check)).toEqual([])
    expect(check.toDefinition(contextOf())).toEqual({
      logicalId: 'site',
      name: 'Site',
      activated: true,
      muted: false,
      tags: [],
      frequencySeconds: 600,
      locations: [],
      privateLocations: [],
      retryStrategy: {
        type: 'NONE',
        baseBackoffSeconds: 0,
        maxRetries: 0,
        maxDurationSeconds: 0,
        sameRegion: true,
      },
      environmentVariables: [],
      sourceFile: '/checks/site.check.ts',
      type: 'URL',
      request: {
        url: 'https://example.test/health',
        method: 'GET',
        followRedirects: true,
        skipSSL: false,
        ipFamily: 'IPv4',
        headers: [],
        assertions: [],
      },
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
    })
  })

  it('keeps what the user set', () => {
    const check = monitor({
      frequency: Frequency.EVERY_10S,
      request: {
        url: 'http://127.0.0.1:8081/health',
        method: 'HEAD',
        followRedirects: false,
        skipSSL: true,
        ipFamily: 'IPv6',
        headers: [{ key: 'x-a', value: '1' }],
        assertions: [UrlAssertionBuilder.statusCode().equals(200)],
      },
      degradedResponseTime: 100,
      maxResponseTime: 200,
    })
    expect(problemsOf(check)).toEqual([])
    const definition = check.toDefinition(contextOf())
    expect(definition.frequencySeconds).toBe(10)
    expect(definition.request).toEqual({
      url: 'http://127.0.0.1:8081/health',
      method: 'HEAD',
      followRedirects: false,
      skipSSL: true,
      ipFamily: 'IPv6',
      headers: [{ key: 'x-a', value: '1' }],
      assertions: [{ source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', regex: null }],
    })
    expect([definition.degradedResponseTime, definition.maxResponseTime]).toEqual([100, 200])
  })

  it('takes a URL of up to 2048 characters and refuses a longer one', () => {
    const prefix = 'https://example.test/'
    expect(problemsOf(withRequest({ url: prefix + 'a'.repeat(2048 - prefix.length) }))).toEqual([])
    expect(problemsOf(withRequest({ url: prefix + 'a'.repeat(2049 - prefix.length) }))).toEqual([
      'request.url: must be at most 2048 characters, got 2049',
    ])
  })

  it('refuses a missing request, a missing url, a relative url and other schemes', () => {
    expect(problemsOf(new UrlMonitor('site', { name: 'Site' } as UrlMonitorProps))).toEqual([
      'request: is required',
    ])
    expect(problemsOf(withRequest({ url: undefined }))).toEqual(['request.url: is required'])
    expect(problemsOf(withRequest({ url: '/health' }))).toEqual([
      'request.url: must be an absolute http(s) URL, got "/health"',
    ])
    expect(problemsOf(withRequest({ url: 'ftp://example.test/' }))).toEqual([
      'request.url: must use http or https, got "ftp"',
    ])
  })

  it('refuses bad request options, naming each', () => {
    const check = withRequest({
      method: 'POST',
      followRedirects: 'yes',
      skipSSL: 1,
      ipFamily: 'IPv5',
      headers: [{ key: '', value: 'x' }],
      body: 'x',
    })
    expect(problemsOf(check)).toEqual([
      'request.body: unknown option; known: url, method, followRedirects, skipSSL, ipFamily, headers, assertions',
      'request.method: must be one of GET, HEAD, got "POST"',
      'request.followRedirects: must be true or false, got "yes"',
      'request.skipSSL: must be true or false, got 1',
      'request.ipFamily: must be one of IPv4, IPv6, got "IPv5"',
      'request.headers[0]: must be {key, value} with a non-empty string key and a string value',
    ])
  })

  it('caps both response times at 30000 ms', () => {
    expect(problemsOf(monitor({ degradedResponseTime: 30_000, maxResponseTime: 30_000 }))).toEqual([])
    expect(problemsOf(monitor({ degradedResponseTime: 30_001, maxResponseTime: 30_001 }))).toEqual([
      'degradedResponseTime: must be an integer from 0 to 30000 ms, got 30001',
      'maxResponseTime: must be an integer from 0 to 30000 ms, got 30001',
    ])
  })

  it('refuses degradedResponseTime above maxResponseTime, also against the default max', () => {
    expect(problemsOf(monitor({ degradedResponseTime: 2000, maxResponseTime: 2000 }))).toEqual([])
    expect(problemsOf(monitor({ degradedResponseTime: 2001, maxResponseTime: 2000 }))).toEqual([
      'degradedResponseTime: must not exceed maxResponseTime (2000 ms), got 2001 ms',
    ])
    expect(problemsOf(monitor({ degradedResponseTime: 6000 }))).toEqual([
      'degradedResponseTime: must not exceed maxResponseTime (5000 ms), got 6000 ms',
    ])
  })

  it('refuses assertions from another check type', () => {
    const check = withRequest({
      assertions: [{ source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '1' }],
    })
    expect(problemsOf(check)).toEqual([
      'request.assertions[0].source: must be one of STATUS_CODE, HEADERS, TEXT_BODY, RESPONSE_TIME for URL checks, got "LATENCY"',
    ])
  })

  it('allows every frequency from EVERY_10S to EVERY_24H', () => {
    for (const frequency of Object.values(Frequency)) expect(problemsOf(monitor({ frequency }))).toEqual([])
  })
})
