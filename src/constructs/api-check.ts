// ApiCheck: one HTTP request of any method and body, assertions on everything in the response, and
// optional setup / teardown scripts around it (Checkly's ApiCheck).

import {
  type ApiCheck as ApiDefinition,
  type Assertion,
  BodyType,
  type CheckCode,
  HttpMethod,
  type IpFamily,
  type KeyValuePair,
  NEWEST_RUNTIME,
  type RuntimeId,
} from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import { resolveCode, validateCode } from './code.ts'
import type { Report } from './diagnostics.ts'
import { type Frequency, MINUTE_FREQUENCIES } from './frequency.ts'
import { resolveResponseTimes, validateResponseTimes } from './response-times.ts'
import { validateRuntimeId } from './runtime.ts'
import { MAX_URL_LENGTH, validateHttpUrl } from './url-monitor.ts'
import { validateAssertions } from './validate-assertions.ts'
import {
  checkBoolean,
  checkKeyValueArray,
  checkKnownKeys,
  checkOneOf,
  checkRequestObject,
  checkString,
  isRecord,
  show,
} from './values.ts'

export interface ApiCheckRequest {
  /** May hold `{{NAME}}` placeholders, filled from environment variables at run time. */
  url: string
  method: HttpMethod
  headers?: KeyValuePair[]
  queryParameters?: KeyValuePair[]
  body?: string
  /** Default NONE. */
  bodyType?: BodyType
  basicAuth?: { username: string; password: string }
  followRedirects?: boolean
  skipSSL?: boolean
  ipFamily?: IpFamily
  assertions?: Assertion[]
}

export interface ApiCheckProps extends CheckProps {
  request: ApiCheckRequest
  /** ms; default 10000, at most 30000, not above maxResponseTime. */
  degradedResponseTime?: number
  /** ms; default 20000, at most 30000. */
  maxResponseTime?: number
  /** true: an error status (400 and above) counts as passed, as in Checkly; assertions still decide (default false). */
  shouldFail?: boolean
  /** Runs before the request and may change it: {entrypoint: './setup.ts'} or {content}. */
  setupScript?: CheckCode
  /** Runs after the response, before assertions: {entrypoint} or {content}. */
  tearDownScript?: CheckCode
  /** Runtime of the scripts (default: the project's, else 2026.04). */
  runtimeId?: RuntimeId
}

export const API_RESPONSE_TIMES = { degradedDefault: 10_000, maxDefault: 20_000, cap: 30_000 } as const
export const SCRIPT_ENDINGS = ['.ts', '.js', '.mjs'] as const
const REQUEST_KEYS = [
  'url',
  'method',
  'headers',
  'queryParameters',
  'body',
  'bodyType',
  'basicAuth',
  'followRedirects',
  'skipSSL',
  'ipFamily',
  'assertions',
] as const

export class ApiCheck extends Check<ApiCheckProps> {
  get type() {
    return 'API' as const
  }
  protected get kind() {
    return 'API checks'
  }
  protected get ownProps() {
    return [
      'request',
      'degradedResponseTime',
      'maxResponseTime',
      'shouldFail',
      'setupScript',
      'tearDownScript',
      'runtimeId',
    ]
  }
  protected get frequencies(): readonly Frequency[] {
    return MINUTE_FREQUENCIES
  }

  protected validateOwn(report: Report, props: Record<string, unknown>, context: CheckContext): void {
    validateResponseTimes(report, props, API_RESPONSE_TIMES)
    checkBoolean(report, 'shouldFail', props.shouldFail)
    for (const script of ['setupScript', 'tearDownScript'] as const) {
      if (props[script] !== undefined) {
        validateCode(report, script, props[script], context.checkFile, { entrypointEndings: SCRIPT_ENDINGS })
      }
    }
    validateRuntimeId(report, 'runtimeId', props.runtimeId, this.kind)
    const request = checkRequestObject(report, props.request, REQUEST_KEYS)
    if (!request) return
    validateApiUrl(report, request.url)
    if (request.method === undefined) report('request.method', `is required; one of ${HttpMethod.join(', ')}`)
    checkOneOf(report, 'request.method', request.method, HttpMethod)
    checkKeyValueArray(report, 'request.headers', request.headers)
    checkKeyValueArray(report, 'request.queryParameters', request.queryParameters)
    checkString(report, 'request.body', request.body)
    checkOneOf(report, 'request.bodyType', request.bodyType, BodyType)
    validateBasicAuth(report, request.basicAuth)
    checkBoolean(report, 'request.followRedirects', request.followRedirects)
    checkBoolean(report, 'request.skipSSL', request.skipSSL)
    checkOneOf(report, 'request.ipFamily', request.ipFamily, ['IPv4', 'IPv6'])
    validateAssertions(report, 'request.assertions', request.assertions, 'API')
  }

  toDefinition(context: CheckContext): ApiDefinition {
    const p = this.props
    const request = p.request
    const { degraded, max } = resolveResponseTimes(p, API_RESPONSE_TIMES)
    const definition: ApiDefinition = {
      ...this.commonDefinition(context),
      type: 'API',
      request: {
        url: request.url,
        method: request.method,
        headers: (request.headers ?? []).map(({ key, value }) => ({ key, value })),
        queryParameters: (request.queryParameters ?? []).map(({ key, value }) => ({ key, value })),
        body: request.body ?? '',
        bodyType: request.bodyType ?? 'NONE',
        followRedirects: request.followRedirects ?? true,
        skipSSL: request.skipSSL ?? false,
        ipFamily: request.ipFamily ?? 'IPv4',
        assertions: [...(request.assertions ?? [])],
      },
      degradedResponseTime: degraded,
      maxResponseTime: max,
      shouldFail: p.shouldFail ?? false,
      runtimeId: p.runtimeId ?? context.defaults?.runtimeId ?? NEWEST_RUNTIME,
    }
    if (request.basicAuth) {
      definition.request.basicAuth = {
        username: request.basicAuth.username,
        password: request.basicAuth.password,
      }
    }
    if (p.setupScript) definition.setupScript = resolveCode(p.setupScript, context.checkFile)
    if (p.tearDownScript) definition.tearDownScript = resolveCode(p.tearDownScript, context.checkFile)
    return definition
  }
}

/** `{{NAME}}` placeholders are filled at run time, so such URLs are only checked for length and scheme. */
function validateApiUrl(report: Report, value: unknown): void {
  if (typeof value === 'string' && value.includes('{{')) {
    if (value.length > MAX_URL_LENGTH) {
      report('request.url', `must be at most ${MAX_URL_LENGTH} characters, got ${value.length}`)
    } else if (!/^(https?:\/\/|\{\{)/.test(value)) {
      report('request.url', `must start with http://, https:// or a {{VARIABLE}}, got ${show(value)}`)
    }
    return
  }
  validateHttpUrl(report, 'request.url', value)
}

function validateBasicAuth(report: Report, value: unknown): void {
  if (value === undefined) return
  if (!isRecord(value)) {
    report('request.basicAuth', 'must be {username, password}')
    return
  }
  checkKnownKeys(report, 'request.basicAuth', value, ['username', 'password'])
  checkString(report, 'request.basicAuth.username', value.username, { required: true })
  // The password is never shown: it is a credential.
  if (typeof value.password !== 'string') report('request.basicAuth.password', 'must be a string')
}
