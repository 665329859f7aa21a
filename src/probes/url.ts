// URL monitor: one GET or HEAD over a fresh connection, phases timed, status (and optionally
// headers, body, response time) asserted, response-time limits applied. Without assertions the
// run passes on any status below 400, like Checkly's URL monitors (3xx only shows up when
// redirects are not followed).

import type { Assertion, UrlCheck } from '../model/checks.ts'
import type { Probe, ProbeContext, ProbeOutcome } from '../model/probe.ts'
import type { AssertionSubject } from './assertions.ts'
import { evaluateAssertions, unsupportedSource } from './assertions.ts'
import type { NetworkDiagnostics } from './diagnostics/network-diagnostics.ts'
import type { NameServer } from './dns/system-resolver.ts'
import {
  type HttpResult,
  headerValue,
  newProgress,
  parseHttpUrl,
  performHttpRequest,
  RequestInputError,
} from './http/request.ts'
import { requestFailure } from './http/request-failure.ts'
import { queryJsonPath } from './json-path.ts'
import { familyOptionsFor, type HostLookup } from './net/timed-connect.ts'
import { createDeadlineClock, type DeadlineClock } from './run-deadline.ts'
import { decideStatus, roundMs, roundTimings } from './thresholds.ts'

export const URL_ASSERTION_SOURCES = [
  'STATUS_CODE',
  'HEADERS',
  'TEXT_BODY',
  'JSON_BODY',
  'RESPONSE_TIME',
] as const

export const DEFAULT_URL_ASSERTION: Assertion = {
  source: 'STATUS_CODE',
  property: '',
  comparison: 'LESS_THAN',
  target: '400',
  regex: null,
}

export const URL_LIMITS = {
  maxBodyBytes: 1024 * 1024,
  /** Body kept in the result when the run fails, to show what the server said. */
  excerptBytes: 2 * 1024,
  maxRedirects: 10,
} as const

export interface UrlProbeDependencies {
  /** Per-agent diagnostics (traceroute + capture) for connection-level failures; none when unset. */
  diagnostics?: NetworkDiagnostics
  /** Name lookup; the OS's (getaddrinfo) when unset. */
  lookup?: HostLookup
  /** The resolver diagnostics look at when a name does not resolve; the OS's first when unset. */
  resolver?: NameServer
}

export function createUrlProbe(dependencies: UrlProbeDependencies = {}): Probe<UrlCheck> {
  const clock = createDeadlineClock()
  return (check, ctx) => runUrlCheck(check, ctx, dependencies, clock)
}

async function runUrlCheck(
  check: UrlCheck,
  ctx: ProbeContext,
  deps: UrlProbeDependencies,
  clock: DeadlineClock,
): Promise<ProbeOutcome> {
  const request = check.request
  let url: URL
  try {
    url = parseHttpUrl(request.url)
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new RequestInputError(
        `request.method '${request.method}' is not allowed for URL monitors (GET, HEAD)`,
      )
    }
  } catch (err) {
    return {
      status: 'failed',
      error: { code: 'INVALID_REQUEST', message: (err as Error).message },
      assertions: [],
    }
  }
  const deadline = clock.start(ctx.signal, check.maxResponseTime)
  const progress = newProgress(url)
  let result: HttpResult
  try {
    result = await performHttpRequest(
      {
        url,
        method: request.method,
        headers: request.headers,
        followRedirects: request.followRedirects,
        skipSSL: request.skipSSL,
        ipFamily: request.ipFamily,
        maxBodyBytes: URL_LIMITS.maxBodyBytes,
        maxRedirects: URL_LIMITS.maxRedirects,
        lookup: deps.lookup,
        family: familyOptionsFor(deps.lookup),
      },
      progress,
      deadline.signal,
    )
  } catch (err) {
    return requestFailure(
      err,
      { maxResponseTime: check.maxResponseTime, ipFamily: check.request.ipFamily, ...deps },
      ctx,
      deadline,
      progress,
    )
  } finally {
    deadline.dispose()
  }
  const responseTimeMs = roundMs(deadline.elapsed())
  return judgeResponse(check, result, responseTimeMs)
}

function judgeResponse(check: UrlCheck, result: HttpResult, responseTimeMs: number): ProbeOutcome {
  const assertions = check.request.assertions.length > 0 ? check.request.assertions : [DEFAULT_URL_ASSERTION]
  let text: string | undefined
  const bodyText = (): string => {
    text ??= result.body.toString('utf8')
    return text
  }
  const evaluated = evaluateAssertions(assertions, (a) =>
    resolveUrlSource(a, result, responseTimeMs, bodyText),
  )
  const decision = decideStatus({
    responseTimeMs,
    degradedResponseTime: check.degradedResponseTime,
    maxResponseTime: check.maxResponseTime,
    assertionFailures: evaluated.failures,
  })
  const details: Record<string, unknown> = {
    url: result.url,
    statusCode: result.statusCode,
    remoteAddress: result.remoteAddress,
    ipFamily: result.remoteFamily === 6 ? 'IPv6' : 'IPv4',
    bodyBytes: result.body.length,
    bodyTruncated: result.bodyTruncated,
  }
  if (result.redirects.length > 0) details.redirects = result.redirects
  if (result.certificate) details.tls = result.certificate
  if (result.notes.length > 0) details.notes = result.notes
  if (decision.status === 'failed') details.bodyExcerpt = excerpt(result.body)
  const outcome: ProbeOutcome = {
    status: decision.status,
    responseTimeMs,
    assertions: evaluated.results,
    timings: roundTimings(result.timings),
    details,
  }
  if (decision.error) outcome.error = decision.error
  return outcome
}

export function resolveUrlSource(
  assertion: Assertion,
  result: Pick<HttpResult, 'statusCode' | 'headers'>,
  responseTimeMs: number,
  bodyText: () => string,
): AssertionSubject {
  switch (assertion.source) {
    case 'STATUS_CODE':
      return { value: result.statusCode }
    case 'RESPONSE_TIME':
      return { value: responseTimeMs }
    case 'HEADERS':
      if (assertion.property)
        return { value: headerValue(result.headers, assertion.property.toLowerCase()) ?? null }
      return { value: result.headers, caseInsensitiveKeys: true }
    case 'TEXT_BODY':
      return { value: bodyText(), propertyIsRegex: true }
    case 'JSON_BODY': {
      let document: unknown
      try {
        document = JSON.parse(bodyText())
      } catch {
        return { value: null }
      }
      return { value: assertion.property ? queryJsonPath(document, assertion.property) : document }
    }
    default:
      return unsupportedSource(assertion, URL_ASSERTION_SOURCES)
  }
}

function excerpt(body: Buffer): string {
  return body.subarray(0, URL_LIMITS.excerptBytes).toString('utf8')
}
