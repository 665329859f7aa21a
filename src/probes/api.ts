// API check: one HTTP request of any method and body, with `{{NAME}}` variables filled in, an
// optional setup script that may change the request, an optional teardown script that may reshape
// the response, then assertions on status, headers, body (text or JSONPath) and response time.
// The request is made like a URL monitor's (fresh connection, phases timed, body capped, network
// diagnostics on connection failures); everything the result holds is scrubbed of secrets.

import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { ApiCheck, ApiRequest } from '../model/checks.ts'
import type { Probe, ProbeContext, ProbeOutcome } from '../model/probe.ts'
import type { LogLine } from '../model/result.ts'
import { checkSecretValues } from '../runner/child-env.ts'
import { scrubsAuthorization } from '../runner/runtimes.ts'
import { scrubDeep } from '../runner/scrub-deep.ts'
import { authorizationSecrets, secretsFromEnv } from '../secrets/named-secrets.ts'
import { createScrubber } from '../secrets/scrubber.ts'
import { requestFailure } from './api/request-failure.ts'
import { type ApiResponseView, apiSourceResolver } from './api/resolve-source.ts'
import { runApiScript, type ScriptKind, type ScriptOutcome } from './api/run-script.ts'
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
import { familyOptionsFor, type HostLookup } from './net/timed-connect.ts'
import { createRunDeadline } from './run-deadline.ts'
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
  return async (check, ctx) => {
    const secrets = new Set<string>([
      ...(deps.secretValues ?? []),
      ...secretsFromEnv(deps.env).map((s) => s.value),
      ...checkSecretValues(check.environmentVariables),
    ])
    const outcome = await runApiCheck(check, ctx, deps, secrets).catch(
      (err: unknown): ProbeOutcome => ({
        status: 'failed',
        error: { code: 'INTERNAL_ERROR', message: err instanceof Error ? err.message : String(err) },
        assertions: [],
      }),
    )
    const scrubbed = scrubDeep(outcome, createScrubber(secrets))
    // Scrubbed first, cut after: a cut never leaves half a secret behind.
    return keepBodyBounded(scrubbed)
  }
}

async function runApiCheck(
  check: ApiCheck,
  ctx: ProbeContext,
  deps: ApiProbeDependencies,
  secrets: Set<string>,
): Promise<ProbeOutcome> {
  let variables = requestVariables(check.environmentVariables, deps.env)
  // Filled before the setup script, so it sees (and can sign) the real values; filled again after
  // it, with the variables it set. Without a setup script an unknown name fails at once.
  const first = fillVariables(check.request, variables)
  for (const value of first.secretValues) secrets.add(value)
  let request: ApiRequest = first.request
  if (first.unknown.length > 0 && !check.setupScript) return unknownVariables(first.unknown)
  const logs: LogLine[] = []
  const scripts: Record<string, unknown> = {}
  const runScript = async (kind: ScriptKind, state: { request: unknown; response?: unknown }) => {
    const code = kind === 'setup' ? check.setupScript : check.tearDownScript
    if (!code) return undefined
    const workDir = join(ctx.runDir, `${kind}-script`)
    await mkdir(workDir, { recursive: true })
    try {
      const outcome = await runApiScript({
        kind,
        code,
        runtimeId: check.runtimeId,
        runtimesDir: deps.runtimesDir,
        workDir,
        state,
        agentEnv: deps.env,
        checkEnv: check.environmentVariables,
        testSession: ctx.testSession,
        timeoutMs: deps.scriptTimeoutMs ?? API_LIMITS.scriptTimeoutMs,
        graceMs: deps.scriptGraceMs ?? API_LIMITS.scriptGraceMs,
        signal: ctx.signal,
      })
      collectScript(kind, outcome, logs, scripts, secrets, deps)
      return outcome
    } finally {
      // Holds the unscrubbed state and output of the script: never outlives the run.
      await rm(workDir, { recursive: true, force: true })
    }
  }
  const failedScript = (outcome: ScriptOutcome, extra: Record<string, unknown> = {}): ProbeOutcome => ({
    status: 'failed',
    error: outcome.error ?? { code: 'SCRIPT_FAILED', message: 'script failed' },
    assertions: [],
    logs,
    details: { ...extra, scripts },
  })

  const setup = await runScript('setup', { request: toScriptRequest(request) })
  if (setup && !setup.ok) return failedScript(setup)
  if (setup) {
    try {
      request = fromScriptRequest(setup.state?.request, request)
    } catch (err) {
      if (!(err instanceof ScriptStateError)) throw err
      return {
        status: 'failed',
        error: { code: 'SETUP_SCRIPT_FAILED', message: `setup script: ${err.message}` },
        assertions: [],
        logs,
        details: { scripts },
      }
    }
    variables = withScriptVariables(variables, setup.state?.env ?? {})
    const second = fillVariables(request, variables)
    for (const value of second.secretValues) secrets.add(value)
    if (second.unknown.length > 0) return { ...unknownVariables(second.unknown), logs }
    request = second.request
  }
  let wire: WireRequest
  try {
    wire = toWireRequest(request)
  } catch (err) {
    if (!(err instanceof RequestInputError)) throw err
    return {
      status: 'failed',
      error: { code: 'INVALID_REQUEST', message: err.message },
      assertions: [],
      logs,
      details: { scripts },
    }
  }
  if (scrubsAuthorization(check.runtimeId)) {
    for (const h of wire.headers) {
      if (h.key.toLowerCase() === 'authorization') {
        for (const s of authorizationSecrets(h.value)) secrets.add(s.value)
      }
    }
  }

  const deadline = createRunDeadline(ctx.signal, check.maxResponseTime)
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
    return { ...failure, logs, details: { ...failure.details, method: wire.method, scripts } }
  } finally {
    deadline.dispose()
  }
  const responseTimeMs = roundMs(deadline.elapsed())
  const received: ApiResponseView = {
    statusCode: result.statusCode,
    statusText: result.statusMessage,
    headers: result.headers,
    body: result.body.toString('utf8'),
  }
  const details: Record<string, unknown> = {
    url: result.url,
    method: wire.method,
    statusCode: result.statusCode,
    remoteAddress: result.remoteAddress,
    ipFamily: result.remoteFamily === 6 ? 'IPv6' : 'IPv4',
    response: {
      statusCode: received.statusCode,
      statusText: received.statusText,
      headers: received.headers,
      body: received.body,
      bodyBytes: result.body.length,
      bodyTruncated: result.bodyTruncated,
    },
    scripts,
  }
  if (result.redirects.length > 0) details.redirects = result.redirects
  if (result.certificate) details.tls = result.certificate
  if (result.notes.length > 0) details.notes = result.notes
  const timings = roundTimings(result.timings)

  let response = received
  const teardown = await runScript('teardown', {
    request: toScriptRequest(request),
    response: toScriptResponse(received, responseTimeMs),
  })
  if (teardown && !teardown.ok) {
    return { ...failedScript(teardown, details), responseTimeMs, timings }
  }
  if (teardown) {
    try {
      response = fromScriptResponse(teardown.state?.response)
    } catch (err) {
      if (!(err instanceof ScriptStateError)) throw err
      return {
        status: 'failed',
        error: { code: 'TEARDOWN_SCRIPT_FAILED', message: `teardown script: ${err.message}` },
        assertions: [],
        responseTimeMs,
        timings,
        logs,
        details,
      }
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
  const outcome: ProbeOutcome = {
    status: decision.status,
    responseTimeMs,
    assertions: evaluated.results,
    timings,
    details,
  }
  if (logs.length > 0) outcome.logs = logs
  if (decision.error) outcome.error = decision.error
  return outcome
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

function collectScript(
  kind: ScriptKind,
  outcome: ScriptOutcome,
  logs: LogLine[],
  scripts: Record<string, unknown>,
  secrets: Set<string>,
  deps: ApiProbeDependencies,
): void {
  for (const line of outcome.logs) logs.push({ ...line, message: `[${kind}] ${line.message}` })
  scripts[kind] = {
    ok: outcome.ok,
    durationMs: outcome.durationMs,
    ...(outcome.error ? { error: outcome.error.code } : {}),
  }
  if (outcome.discoveredSecrets.length > 0) {
    for (const value of outcome.discoveredSecrets) secrets.add(value)
    deps.onSecrets?.(outcome.discoveredSecrets)
  }
}

/** The response body shown in the result is bounded; assertions already saw it whole. */
function keepBodyBounded(outcome: ProbeOutcome): ProbeOutcome {
  const details = outcome.details
  if (!details) return outcome
  for (const key of ['response', 'assertedResponse']) {
    const shown = details[key] as { body?: unknown; bodyShownChars?: number } | undefined
    if (shown && typeof shown.body === 'string' && shown.body.length > API_LIMITS.keptBodyChars) {
      shown.body = `${shown.body.slice(0, API_LIMITS.keptBodyChars)}…`
      shown.bodyShownChars = API_LIMITS.keptBodyChars
    }
  }
  return outcome
}
