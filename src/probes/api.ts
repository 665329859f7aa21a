// API check: one HTTP request of any method and body, with `{{NAME}}` variables filled in, an
// optional setup script that may change the request, an optional teardown script that may reshape
// the response, then assertions on status, headers, body (text or JSONPath) and response time.
// The request is made like a URL monitor's (fresh connection, phases timed, body capped, network
// diagnostics on connection failures); everything the result holds is scrubbed of secrets.

import type { ApiCheck, ApiRequest } from '../model/checks.ts'
import type { Probe, ProbeContext, ProbeOutcome } from '../model/probe.ts'
import type { ResultError } from '../model/result.ts'
import { checkSecretValues } from '../runner/child-env.ts'
import { scrubsAuthorization } from '../runner/runtimes.ts'
import { authorizationSecrets, secretsFromEnv } from '../secrets/named-secrets.ts'
import { scrubDeep } from '../secrets/scrub-deep.ts'
import { createScrubber } from '../secrets/scrubber.ts'
import { type ApiResponseView, apiSourceResolver } from './api/resolve-source.ts'
import { keepBodiesBounded, responseDetails } from './api/response-details.ts'
import type { ScriptOutcome } from './api/run-script.ts'
import { createScriptPhases } from './api/script-phases.ts'
import {
  fromScriptRequest,
  fromScriptResponse,
  ScriptStateError,
  toScriptRequest,
  toScriptResponse,
} from './api/script-state.ts'
import {
  fillVariables,
  requestVariables,
  type UnknownVariable,
  UnknownVariableError,
  withScriptVariables,
} from './api/variables.ts'
import { decideApiStatus } from './api/verdict.ts'
import { toWireRequest, type WireRequest } from './api/wire-request.ts'
import { evaluateAssertions } from './assertions.ts'
import type { NetworkDiagnostics } from './diagnostics/network-diagnostics.ts'
import type { NameServer } from './dns/system-resolver.ts'
import { type HttpResult, newProgress, performHttpRequest, RequestInputError } from './http/request.ts'
import { requestFailure } from './http/request-failure.ts'
import { familyOptionsFor, type HostLookup } from './net/timed-connect.ts'
import { createDeadlineClock, type DeadlineClock } from './run-deadline.ts'
import { roundMs, roundTimings } from './thresholds.ts'

export const API_LIMITS = {
  /** Bytes of response body read; assertions see at most this much. */
  maxBodyBytes: 1024 * 1024,
  /** Characters of (scrubbed) response body kept in the result. */
  keptBodyChars: 16 * 1024,
  maxRedirects: 10,
  /** Each script's own limit, as Checkly's (the job's timeout still applies). */
  scriptTimeoutMs: 10_000,
  scriptGraceMs: 2000,
} as const

export interface ApiProbeDependencies {
  /** Directory holding runtimes/<id>/node_modules, the packages scripts may import. */
  runtimesDir: string
  /**
   * The agent's environment: its SERVICE_SECRET_* fill `{{NAME}}` placeholders; scripts get only
   * PATH, HOME, proxies and the like from it (never API_KEY, never SERVICE_SECRET_*).
   */
  env: Readonly<Record<string, string | undefined>>
  /** The agent's secret values (API_KEY, SERVICE_SECRET_*), scrubbed from every result. */
  secretValues?: readonly string[]
  /** Per-agent diagnostics (traceroute + capture) for connection-level failures; none when unset. */
  diagnostics?: NetworkDiagnostics
  lookup?: HostLookup
  resolver?: NameServer
  /** Default API_LIMITS.scriptTimeoutMs. */
  scriptTimeoutMs?: number
  /** SIGTERM to SIGKILL for a script that is stopped. Default API_LIMITS.scriptGraceMs. */
  scriptGraceMs?: number
  /** Called with secret values a script revealed (SERVICE_SECRET_* it assigned, Authorization it sent). */
  onSecrets?: (values: string[]) => void
}

export function createApiProbe(deps: ApiProbeDependencies): Probe<ApiCheck> {
  const clock = createDeadlineClock()
  return async (check, ctx) => {
    const secrets = new Set<string>([
      ...(deps.secretValues ?? []),
      ...secretsFromEnv(deps.env).map((s) => s.value),
      ...checkSecretValues(check.environmentVariables),
    ])
    const outcome = await runApiCheck(check, ctx, deps, secrets, clock).catch(
      (err: unknown): ProbeOutcome => ({
        status: 'failed',
        error: { code: 'INTERNAL_ERROR', message: err instanceof Error ? err.message : String(err) },
        assertions: [],
      }),
    )
    const scrubbed = scrubDeep(outcome, createScrubber(secrets))
    // Scrubbed first, cut after: a cut never leaves half a secret behind.
    return keepBodiesBounded(scrubbed, API_LIMITS.keptBodyChars)
  }
}

async function runApiCheck(
  check: ApiCheck,
  ctx: ProbeContext,
  deps: ApiProbeDependencies,
  secrets: Set<string>,
  clock: DeadlineClock,
): Promise<ProbeOutcome> {
  let variables = requestVariables(check.environmentVariables, deps.env)
  // Filled before the setup script, so it sees (and can sign) the real values; filled again after
  // it, with the variables it set. Without a setup script an unknown name fails at once.
  const first = fillVariables(check.request, variables)
  for (const value of first.secretValues) secrets.add(value)
  let request: ApiRequest = first.request
  if (first.unknown.length > 0 && !check.setupScript) return unknownVariables(first.unknown)
  const scripts = createScriptPhases({
    check,
    ctx,
    runtimesDir: deps.runtimesDir,
    agentEnv: deps.env,
    timeoutMs: deps.scriptTimeoutMs ?? API_LIMITS.scriptTimeoutMs,
    graceMs: deps.scriptGraceMs ?? API_LIMITS.scriptGraceMs,
    secrets,
    onSecrets: deps.onSecrets,
  })
  const hasScripts = check.setupScript !== undefined || check.tearDownScript !== undefined
  const failed = (error: ResultError, extra: Partial<ProbeOutcome> = {}): ProbeOutcome => ({
    status: 'failed',
    error,
    assertions: [],
    ...extra,
    ...(scripts.logs.length > 0 ? { logs: scripts.logs } : {}),
    details: { ...extra.details, ...(hasScripts ? { scripts: scripts.summary } : {}) },
  })

  const setup = await scripts.run('setup', { request: toScriptRequest(request) })
  if (setup) {
    if (!setup.ok) return failed(scriptError(setup))
    try {
      request = fromScriptRequest(setup.state?.request, request)
    } catch (err) {
      if (!(err instanceof ScriptStateError)) throw err
      return failed({ code: 'SETUP_SCRIPT_FAILED', message: `setup script: ${err.message}` })
    }
    variables = withScriptVariables(variables, setup.state?.env ?? {})
    const second = fillVariables(request, variables)
    for (const value of second.secretValues) secrets.add(value)
    if (second.unknown.length > 0) return { ...unknownVariables(second.unknown), logs: scripts.logs }
    request = second.request
  }
  let wire: WireRequest
  try {
    wire = toWireRequest(request)
  } catch (err) {
    if (!(err instanceof RequestInputError)) throw err
    return failed({ code: 'INVALID_REQUEST', message: err.message })
  }
  if (scrubsAuthorization(check.runtimeId)) {
    for (const h of wire.headers) {
      if (h.key.toLowerCase() !== 'authorization') continue
      for (const secret of authorizationSecrets(h.value)) secrets.add(secret.value)
    }
  }

  const deadline = clock.start(ctx.signal, check.maxResponseTime)
  const progress = newProgress(wire.url)
  let result: HttpResult
  try {
    result = await performHttpRequest(
      {
        url: wire.url,
        method: wire.method,
        headers: wire.headers,
        body: wire.body,
        followRedirects: request.followRedirects,
        skipSSL: request.skipSSL,
        ipFamily: request.ipFamily,
        maxBodyBytes: API_LIMITS.maxBodyBytes,
        maxRedirects: API_LIMITS.maxRedirects,
        lookup: deps.lookup,
        family: familyOptionsFor(deps.lookup),
      },
      progress,
      deadline.signal,
    )
  } catch (err) {
    const failure = await requestFailure(
      err,
      {
        maxResponseTime: check.maxResponseTime,
        ipFamily: request.ipFamily,
        diagnostics: deps.diagnostics,
        lookup: deps.lookup,
        resolver: deps.resolver,
      },
      ctx,
      deadline,
      progress,
    )
    return failed(failure.error ?? { code: 'NETWORK_ERROR', message: 'request failed' }, {
      ...failure,
      details: { ...failure.details, method: wire.method },
    })
  } finally {
    deadline.dispose()
  }
  const responseTimeMs = roundMs(deadline.elapsed())
  const timings = roundTimings(result.timings)
  const received: ApiResponseView = {
    statusCode: result.statusCode,
    statusText: result.statusMessage,
    headers: result.headers,
    body: result.body.toString('utf8'),
  }
  const details = responseDetails(result, wire.method, received.body)

  let response = received
  const teardown = await scripts.run('teardown', {
    request: toScriptRequest(request),
    response: toScriptResponse(received, responseTimeMs),
  })
  if (teardown) {
    if (!teardown.ok) return failed(scriptError(teardown), { responseTimeMs, timings, details })
    try {
      response = fromScriptResponse(teardown.state?.response)
    } catch (err) {
      if (!(err instanceof ScriptStateError)) throw err
      const error = { code: 'TEARDOWN_SCRIPT_FAILED', message: `teardown script: ${err.message}` }
      return failed(error, { responseTimeMs, timings, details })
    }
    details.assertedResponse = {
      statusCode: response.statusCode,
      headers: response.headers,
      body: response.body,
    }
  }

  const evaluated = evaluateAssertions(check.request.assertions, apiSourceResolver(response, responseTimeMs))
  const decision = decideApiStatus({
    statusCode: response.statusCode,
    responseTimeMs,
    degradedResponseTime: check.degradedResponseTime,
    maxResponseTime: check.maxResponseTime,
    assertionFailures: evaluated.failures,
    shouldFail: check.shouldFail,
  })
  if (check.shouldFail) details.shouldFail = true
  if (hasScripts) details.scripts = scripts.summary
  const outcome: ProbeOutcome = {
    status: decision.status,
    responseTimeMs,
    assertions: evaluated.results,
    timings,
    details,
  }
  if (scripts.logs.length > 0) outcome.logs = scripts.logs
  if (decision.error) outcome.error = decision.error
  return outcome
}

function scriptError(outcome: ScriptOutcome): ResultError {
  return outcome.error ?? { code: 'SCRIPT_FAILED', message: 'script failed' }
}

function unknownVariables(unknown: UnknownVariable[]): ProbeOutcome {
  const error = new UnknownVariableError(unknown)
  return {
    status: 'failed',
    error: { code: error.code, message: error.message },
    assertions: [],
    details: { unknownVariables: unknown },
  }
}
