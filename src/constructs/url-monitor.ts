// UrlMonitor: one HTTP GET (or HEAD), pass/degrade/fail on status, time and assertions (Checkly's).

import type { Assertion, IpFamily, KeyValuePair, UrlCheck } from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import type { Report } from './diagnostics.ts'
import { ALL_FREQUENCIES, type Frequency } from './frequency.ts'
import { resolveResponseTimes, validateResponseTimes } from './response-times.ts'
import { validateAssertions } from './validate-assertions.ts'
import {
  checkBoolean,
  checkKeyValueArray,
  checkOneOf,
  checkRequestObject,
  checkString,
  show,
} from './values.ts'

export interface UrlMonitorRequest {
  /** http(s) URL, at most 2048 characters. */
  url: string
  method?: 'GET' | 'HEAD'
  followRedirects?: boolean
  skipSSL?: boolean
  ipFamily?: IpFamily
  headers?: KeyValuePair[]
  assertions?: Assertion[]
}

export interface UrlMonitorProps extends CheckProps {
  request: UrlMonitorRequest
  /** ms; default 3000, at most 30000, not above maxResponseTime. */
  degradedResponseTime?: number
  /** ms; default 5000, at most 30000. */
  maxResponseTime?: number
}

export const URL_RESPONSE_TIMES = { degradedDefault: 3000, maxDefault: 5000, cap: 30_000 } as const
export const MAX_URL_LENGTH = 2048
const REQUEST_KEYS = [
  'url',
  'method',
  'followRedirects',
  'skipSSL',
  'ipFamily',
  'headers',
  'assertions',
] as const

export class UrlMonitor extends Check<UrlMonitorProps> {
  get type() {
    return 'URL' as const
  }
  protected get kind() {
    return 'URL monitors'
  }
  protected get ownProps() {
    return ['request', 'degradedResponseTime', 'maxResponseTime']
  }
  protected get frequencies(): readonly Frequency[] {
    return ALL_FREQUENCIES
  }

  protected validateOwn(report: Report, props: Record<string, unknown>): void {
    validateResponseTimes(report, props, URL_RESPONSE_TIMES)
    const request = checkRequestObject(report, props.request, REQUEST_KEYS)
    if (!request) return
    validateHttpUrl(report, 'request.url', request.url)
    checkOneOf(report, 'request.method', request.method, ['GET', 'HEAD'])
    checkBoolean(report, 'request.followRedirects', request.followRedirects)
    checkBoolean(report, 'request.skipSSL', request.skipSSL)
    checkOneOf(report, 'request.ipFamily', request.ipFamily, ['IPv4', 'IPv6'])
    checkKeyValueArray(report, 'request.headers', request.headers)
    validateAssertions(report, 'request.assertions', request.assertions, 'URL')
  }

  toDefinition(context: CheckContext): UrlCheck {
    const request = this.props.request
    const { degraded, max } = resolveResponseTimes(this.props, URL_RESPONSE_TIMES)
    return {
      ...this.commonDefinition(context),
      type: 'URL',
      request: {
        url: request.url,
        method: request.method ?? 'GET',
        followRedirects: request.followRedirects ?? true,
        skipSSL: request.skipSSL ?? false,
        ipFamily: request.ipFamily ?? 'IPv4',
        headers: (request.headers ?? []).map(({ key, value }) => ({ key, value })),
        assertions: [...(request.assertions ?? [])],
      },
      degradedResponseTime: degraded,
      maxResponseTime: max,
    }
  }
}

/** http(s) only, at most 2048 characters: also used by ApiCheck. */
export function validateHttpUrl(report: Report, property: string, value: unknown): void {
  if (!checkString(report, property, value, { required: true, maxLength: MAX_URL_LENGTH })) return
  let parsed: URL
  try {
    parsed = new URL(value as string)
  } catch {
    report(property, `must be an absolute http(s) URL, got ${show(value)}`)
    return
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    report(property, `must use http or https, got ${show(parsed.protocol.replace(/:$/, ''))}`)
  }
}
