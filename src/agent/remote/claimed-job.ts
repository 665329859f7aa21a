// One job of a claim answer, checked before it reaches the scheduler. The hub may be newer, older,
// buggy or not the hub at all (a proxy mangling answers): a job is either a Job the agent can run,
// or the problems that stop it, each naming the field, the value (cut and quoted) and what is
// allowed. The job's own fields and what the agent relies on around every run (type, logicalId,
// name, timeout, retries, environment) are required and checked; a type's own fields are checked
// where they are there (types, enumerations, ranges), and one left out is the executor's to judge.
// What a probe validates in depth with a message of its own (a DNS name, heartbeat periods) is left
// to it. Fields this agent does not know are ignored: a newer hub may send more.

import { MAX_TIMEOUT_SECONDS } from '../../constructs/check.ts'
import type { Report } from '../../constructs/diagnostics.ts'
import { validateRetryStrategy } from '../../constructs/retry-strategy.ts'
import { validateHttpUrl } from '../../constructs/url-monitor.ts'
import { validateAssertions } from '../../constructs/validate-assertions.ts'
import {
  checkBoolean,
  checkInteger,
  checkKeyValueArray,
  checkOneOf,
  checkString,
  checkStringArray,
  isRecord,
  listOf,
  show,
} from '../../constructs/values.ts'
import {
  BodyType,
  type CheckDefinition,
  CheckType,
  DnsRecordType,
  HttpMethod,
  RuntimeId,
} from '../../model/checks.ts'
import type { Job } from '../../model/job.ts'
import { ICMP_MAX_PING_COUNT } from '../../probes/icmp.ts'

/** The hub's run ids (and the only ones its lease and artifact routes accept). */
const RUN_ID = /^[\w-]{1,100}$/
/** The hub's limits for what a result repeats from the job (checkResultSchema). */
const MAX_CHECK_ID = 200
const MAX_NAME = 1024
const MAX_SESSION_ID = 100
/** A broken job reports at most this many problems: the first few say what is wrong. */
const MAX_PROBLEMS = 20

export interface ClaimedJob {
  job: Job
  leaseUntil: number
}

/** A job that cannot run. `runId` is unset when the job has no usable id (nothing to report against). */
export interface InvalidClaimedJob {
  runId?: string
  problems: string[]
  /** What the failed result can say about the run; each only when the hub sent a usable value. */
  checkId?: string
  checkType?: string
  name?: string
  attempt?: number
  sessionId?: string
  leaseUntil?: number
}

export type ClaimedJobOutcome = { ok: true; value: ClaimedJob } | { ok: false; value: InvalidClaimedJob }

/** The jobs of a claim answer, or an error saying what the answer is instead. */
export function claimedJobsOf(body: unknown): unknown[] {
  const prefix = "the hub's answer to the job claim is not {jobs: [...]}"
  if (body === undefined) throw new Error(`${prefix}: it was empty`)
  if (typeof body === 'string') {
    // hub-client hands over text it could not parse as JSON: an HTML page from a proxy, say.
    throw new Error(`${prefix}: it is not JSON, got ${show(body)}`)
  }
  if (!isRecord(body)) throw new Error(`${prefix}: it must be an object, got ${show(body)}`)
  if (body.jobs === undefined) throw new Error(`${prefix}: jobs is missing`)
  if (!Array.isArray(body.jobs)) throw new Error(`${prefix}: jobs must be an array, got ${show(body.jobs)}`)
  return body.jobs
}

/** The run id of a claimed job, when it has one the hub can be told about. */
export function runIdOf(wire: unknown): string | undefined {
  if (!isRecord(wire)) return undefined
  return typeof wire.id === 'string' && RUN_ID.test(wire.id) ? wire.id : undefined
}

/**
 * Checks one claimed job. `checkTypes` are the types this agent registered for; `normalise` fills
 * the defaults of a sparse definition once it is known to be sound.
 */
export function parseClaimedJob(
  wire: unknown,
  checkTypes: readonly string[],
  normalise: (check: Record<string, unknown>, testSession: boolean) => CheckDefinition,
): ClaimedJobOutcome {
  const problems: string[] = []
  const report: Report = (property, reason) => {
    // Known keys are not enforced: a newer hub may add fields this agent has never heard of.
    if (reason.startsWith('unknown option')) return
    if (problems.length < MAX_PROBLEMS) problems.push(`${property}: ${reason}`)
  }
  if (!isRecord(wire)) {
    report('job', `must be an object, got ${show(wire)}`)
    return { ok: false, value: { problems } }
  }
  const runId = runIdOf(wire)
  if (runId === undefined) {
    report('id', `must be a run id (1 to 100 letters, digits, '_' or '-'), got ${show(wire.id)}`)
  }
  checkFiniteNumber(report, 'dueAt', wire.dueAt, 'epoch milliseconds', true)
  checkRequiredInteger(report, 'attempt', wire.attempt, 0, Number.MAX_SAFE_INTEGER)
  checkFiniteNumber(report, 'leaseUntil', wire.leaseUntil, 'epoch milliseconds', true)
  if (typeof wire.testSession !== 'boolean')
    report('testSession', `must be true or false, got ${show(wire.testSession)}`)
  if (wire.sessionId !== undefined) checkText(report, 'sessionId', wire.sessionId, MAX_SESSION_ID)
  const check = wire.check
  if (!isRecord(check)) {
    report('check', `must be an object (a check definition), got ${show(check)}`)
  } else {
    validateCheck(prefixed(report, 'check'), check, checkTypes)
  }

  if (problems.length === 0 && runId !== undefined && isRecord(check)) {
    const testSession = wire.testSession as boolean
    return {
      ok: true,
      value: {
        job: {
          id: runId,
          check: normalise(check, testSession),
          dueAt: wire.dueAt as number,
          attempt: wire.attempt as number,
          ...(typeof wire.sessionId === 'string' && wire.sessionId !== ''
            ? { sessionId: wire.sessionId }
            : {}),
          testSession,
        },
        leaseUntil: wire.leaseUntil as number,
      },
    }
  }
  const usable = (value: unknown, max: number): string | undefined =>
    typeof value === 'string' && value.trim() !== '' && value.length <= max && !value.includes('\u0000')
      ? value
      : undefined
  const defined = isRecord(check) ? check : {}
  return {
    ok: false,
    value: {
      problems,
      ...optional('runId', runId),
      ...optional('checkId', usable(defined.logicalId, MAX_CHECK_ID)),
      // Any plain type name: the hub takes a result of a type it does not know (1 to 40 characters).
      ...optional(
        'checkType',
        typeof defined.type === 'string' && /^[A-Z0-9_]{1,40}$/.test(defined.type) ? defined.type : undefined,
      ),
      ...optional('name', usable(defined.name, MAX_NAME)),
      ...optional(
        'attempt',
        Number.isSafeInteger(wire.attempt) && (wire.attempt as number) >= 0
          ? (wire.attempt as number)
          : undefined,
      ),
      ...optional('sessionId', usable(wire.sessionId, MAX_SESSION_ID)),
      ...optional('leaseUntil', Number.isFinite(wire.leaseUntil) ? (wire.leaseUntil as number) : undefined),
    },
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}

function prefixed(report: Report, prefix: string): Report {
  return (property, reason) => report(`${prefix}.${property}`, reason)
}

function checkFiniteNumber(
  report: Report,
  property: string,
  value: unknown,
  what: string,
  required = false,
): boolean {
  if (value === undefined && !required) return true
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    report(property, `must be a number (${what}, not negative), got ${show(value)}`)
    return false
  }
  return true
}

function checkRequiredInteger(
  report: Report,
  property: string,
  value: unknown,
  min: number,
  max: number,
): void {
  if (value === undefined) report(property, `is required: an integer from ${min} to ${max}`)
  else checkInteger(report, property, value, min, max)
}

/** A string the agent repeats in results and logs: bounded, and without NUL (the hub refuses it). */
function checkText(report: Report, property: string, value: unknown, maxLength: number): boolean {
  if (!checkString(report, property, value, { required: true, maxLength })) return false
  if ((value as string).includes('\u0000')) {
    report(property, `must not contain NUL (U+0000), got ${show(value)}`)
    return false
  }
  return true
}

function validateCheck(report: Report, check: Record<string, unknown>, checkTypes: readonly string[]): void {
  const types = Object.values(CheckType)
  if (check.type === undefined) report('type', `is required; one of ${listOf(types)}`)
  else if (checkOneOf(report, 'type', check.type, types) && !checkTypes.includes(check.type as string)) {
    report('type', `this agent registered for ${listOf(checkTypes)} only, got ${show(check.type)}`)
  }
  checkText(report, 'logicalId', check.logicalId, MAX_CHECK_ID)
  checkText(report, 'name', check.name, MAX_NAME)
  validateCommon(report, check)
  const validateOwn = OWN_FIELDS[check.type as CheckType] as
    | ((r: Report, c: Record<string, unknown>) => void)
    | undefined
  validateOwn?.(report, check)
}

/** What the scheduler and the run around every probe rely on. */
function validateCommon(report: Report, check: Record<string, unknown>): void {
  checkBoolean(report, 'activated', check.activated)
  checkBoolean(report, 'muted', check.muted)
  checkStringArray(report, 'tags', check.tags)
  checkStringArray(report, 'locations', check.locations)
  checkStringArray(report, 'privateLocations', check.privateLocations)
  if (
    check.frequencySeconds !== undefined &&
    !(
      typeof check.frequencySeconds === 'number' &&
      check.frequencySeconds > 0 &&
      Number.isFinite(check.frequencySeconds)
    )
  ) {
    report('frequencySeconds', `must be a positive number of seconds, got ${show(check.frequencySeconds)}`)
  }
  // The run's timer: a string, NaN or an hour past the limit would end the run at once or never.
  checkInteger(report, 'timeoutSeconds', check.timeoutSeconds, 1, MAX_TIMEOUT_SECONDS, 's')
  validateRetry(report, check.retryStrategy)
  validateEnvironment(report, check.environmentVariables)
}

const RETRY_FIELDS = ['type', 'baseBackoffSeconds', 'maxRetries', 'maxDurationSeconds'] as const

/** The scheduler computes retries from every field: one missing would retry without pause or end. */
function validateRetry(report: Report, value: unknown): void {
  if (value === undefined) return
  if (!isRecord(value)) {
    report('retryStrategy', `must be an object {${RETRY_FIELDS.join(', ')}, sameRegion}, got ${show(value)}`)
    return
  }
  if (!validateRetryStrategy(report, 'retryStrategy', value) || value.type === 'NONE') return
  for (const field of RETRY_FIELDS) {
    if (value[field] === undefined)
      report(`retryStrategy.${field}`, `is required when type is ${String(value.type)}`)
  }
}

/** `[{key, value, secret?}]`. Values are never shown: they may be secrets. */
function validateEnvironment(report: Report, value: unknown): void {
  if (value === undefined) return
  if (!Array.isArray(value)) {
    report('environmentVariables', `must be an array of {key, value, secret?}, got ${show(value)}`)
    return
  }
  value.forEach((item, index) => {
    const at = `environmentVariables[${index}]`
    if (!isRecord(item)) report(at, `must be {key, value, secret?}, got ${describe(item)}`)
    else if (typeof item.key !== 'string' || item.key === '')
      report(`${at}.key`, `must be a non-empty string, got ${show(item.key)}`)
    else if (typeof item.value !== 'string')
      report(`${at}.value`, `must be a string, got ${describe(item.value)}`)
    else checkBoolean(report, `${at}.secret`, item.secret)
  })
}

/** The kind of a value, never the value itself. */
function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/**
 * The request every URL, API, DNS, TCP and ICMP check needs, with the fields its probe cannot do
 * without; anything missing or not an object is reported.
 */
function requestOf(
  report: Report,
  check: Record<string, unknown>,
  required: readonly string[],
): Record<string, unknown> | undefined {
  const request = check.request
  if (!isRecord(request)) {
    report('request', `must be an object (a ${String(check.type)} check needs one), got ${show(request)}`)
    return undefined
  }
  for (const field of required) {
    if (request[field] === undefined)
      report(`request.${field}`, `is required for ${String(check.type)} checks`)
  }
  return request
}

/** Each of `fields` that is there, checked by `rule`. */
function present(
  report: Report,
  record: Record<string, unknown>,
  prefix: string,
  fields: readonly string[],
  rule: (report: Report, property: string, value: unknown) => unknown,
): void {
  for (const field of fields) {
    if (record[field] !== undefined) rule(report, `${prefix}${field}`, record[field])
  }
}

/** No run may take longer than the longest job timeout, so no response-time limit is above it. */
const MAX_RESPONSE_TIME_MS = MAX_TIMEOUT_SECONDS * 1000
const responseTime = (report: Report, property: string, value: unknown): boolean => {
  if (!checkFiniteNumber(report, property, value, 'milliseconds')) return false
  if (typeof value === 'number' && value > MAX_RESPONSE_TIME_MS) {
    report(property, `must be at most ${MAX_RESPONSE_TIME_MS} milliseconds, got ${show(value)}`)
    return false
  }
  return true
}
const port = (report: Report, property: string, value: unknown): boolean =>
  checkInteger(report, property, value, 1, 65_535)
const host = (report: Report, property: string, value: unknown): boolean =>
  checkText(report, property, value, 253)
const text = (report: Report, property: string, value: unknown): boolean =>
  checkString(report, property, value)
const IP_FAMILIES = ['IPv4', 'IPv6'] as const

/** What an HTTP request (URL and API checks) shares. */
function checkHttpRequest(
  report: Report,
  request: Record<string, unknown>,
  methods: readonly string[],
  type: 'URL' | 'API',
): void {
  if (request.url !== undefined) validateHttpUrl(report, 'request.url', request.url)
  checkOneOf(report, 'request.method', request.method, methods)
  checkBoolean(report, 'request.followRedirects', request.followRedirects)
  checkBoolean(report, 'request.skipSSL', request.skipSSL)
  checkOneOf(report, 'request.ipFamily', request.ipFamily, IP_FAMILIES)
  checkKeyValueArray(report, 'request.headers', request.headers)
  validateAssertions(report, 'request.assertions', request.assertions, type)
}

function checkCode(report: Report, property: string, value: unknown): void {
  if (!isRecord(value)) {
    report(property, `must be an object {entrypoint} or {content}, got ${show(value)}`)
    return
  }
  const given = ['entrypoint', 'content'].filter((key) => value[key] !== undefined)
  if (given.length !== 1) {
    report(
      property,
      `must have exactly one of entrypoint and content, got ${given.length === 0 ? 'neither' : 'both'}`,
    )
  }
  for (const key of given) checkString(report, `${property}.${key}`, value[key], { required: true })
}

/**
 * Each type's own fields. The request and what its probe cannot do without are required; other
 * fields left out get the executor's defaults (the hub stores definitions as they were given).
 */
const OWN_FIELDS: Partial<Record<CheckType, (report: Report, check: Record<string, unknown>) => void>> = {
  URL(report, check) {
    present(report, check, '', ['degradedResponseTime', 'maxResponseTime'], responseTime)
    const request = requestOf(report, check, ['url'])
    if (request !== undefined) checkHttpRequest(report, request, ['GET', 'HEAD'], 'URL')
  },
  API(report, check) {
    present(report, check, '', ['degradedResponseTime', 'maxResponseTime'], responseTime)
    checkBoolean(report, 'shouldFail', check.shouldFail)
    checkOneOf(report, 'runtimeId', check.runtimeId, RuntimeId)
    present(report, check, '', ['setupScript', 'tearDownScript'], checkCode)
    const request = requestOf(report, check, ['url'])
    if (request === undefined) return
    checkHttpRequest(report, request, HttpMethod, 'API')
    checkOneOf(report, 'request.bodyType', request.bodyType, BodyType)
    checkString(report, 'request.body', request.body)
    checkKeyValueArray(report, 'request.queryParameters', request.queryParameters)
    const auth = request.basicAuth
    if (
      auth !== undefined &&
      !(isRecord(auth) && typeof auth.username === 'string' && typeof auth.password === 'string')
    ) {
      // Not shown: it holds a password.
      report('request.basicAuth', 'must be {username, password}, both strings')
    }
  },
  DNS(report, check) {
    present(report, check, '', ['degradedResponseTime', 'maxResponseTime'], responseTime)
    const request = requestOf(report, check, ['query'])
    if (request === undefined) return
    present(report, request, 'request.', ['query', 'nameServer'], host)
    checkOneOf(report, 'request.recordType', request.recordType, DnsRecordType)
    present(report, request, 'request.', ['port'], port)
    checkOneOf(report, 'request.protocol', request.protocol, ['UDP', 'TCP'])
    validateAssertions(report, 'request.assertions', request.assertions, 'DNS')
  },
  TCP(report, check) {
    present(report, check, '', ['degradedResponseTime', 'maxResponseTime'], responseTime)
    const request = requestOf(report, check, ['hostname', 'port'])
    if (request === undefined) return
    present(report, request, 'request.', ['hostname'], host)
    present(report, request, 'request.', ['port'], port)
    checkOneOf(report, 'request.ipFamily', request.ipFamily, IP_FAMILIES)
    checkString(report, 'request.data', request.data)
    validateAssertions(report, 'request.assertions', request.assertions, 'TCP')
  },
  ICMP(report, check) {
    const request = requestOf(report, check, ['hostname'])
    if (request === undefined) return
    present(report, request, 'request.', ['hostname'], host)
    checkInteger(report, 'request.pingCount', request.pingCount, 1, ICMP_MAX_PING_COUNT)
    checkOneOf(report, 'request.ipFamily', request.ipFamily, IP_FAMILIES)
    validateAssertions(report, 'request.assertions', request.assertions, 'ICMP')
  },
  MULTI_STEP(report, check) {
    present(report, check, '', ['code'], checkCode)
    checkOneOf(report, 'runtimeId', check.runtimeId, RuntimeId)
  },
  BROWSER(report, check) {
    present(report, check, '', ['code'], checkCode)
    checkOneOf(report, 'runtimeId', check.runtimeId, RuntimeId)
  },
  PLAYWRIGHT(report, check) {
    present(report, check, '', ['playwrightConfigPath', 'installCommand', 'testCommand'], text)
    checkStringArray(report, 'pwProjects', check.pwProjects)
    checkStringArray(report, 'pwTags', check.pwTags)
  },
}
