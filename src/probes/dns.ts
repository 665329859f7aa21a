// DNS monitor: one query for one record type to one server (the OS's first resolver when none is
// given), over UDP or TCP; a truncated UDP answer is asked again over TCP, as resolvers do. The
// answer is asserted on as rcode, response time, dig-style text or DoH-style JSON. Without
// assertions the run passes when the rcode is NOERROR.

import dns from 'node:dns'
import { isIP } from 'node:net'
import type { Assertion, DnsCheck } from '../model/checks.ts'
import { DnsRecordType } from '../model/checks.ts'
import type { Probe, ProbeContext, ProbeOutcome } from '../model/probe.ts'
import { type AssertionSubject, evaluateAssertions, unsupportedSource } from './assertions.ts'
import { answerJson, answerLines, type JsonAnswer } from './dns/present.ts'
import { firstSystemResolver, type NameServer } from './dns/system-resolver.ts'
import { queryTcp, queryUdp, type RawAnswer, udpRefused } from './dns/transport.ts'
import { createQueryEncoder, type DecodedMessage, decodeMessage, type QueryEncoder } from './dns/wire.ts'
import { queryJsonPath } from './json-path.ts'
import { type HostLookup, resolveHost } from './net/timed-connect.ts'
import { CodedError, classifyNetworkError, type Phase, PhaseError, timeoutError } from './network-errors.ts'
import { createDeadlineClock, type DeadlineClock, type StopSignal } from './run-deadline.ts'
import { decideStatus, roundMs } from './thresholds.ts'

export const DNS_ASSERTION_SOURCES = [
  'RESPONSE_CODE',
  'RESPONSE_TIME',
  'TEXT_ANSWER',
  'JSON_ANSWER',
  // Checkly's newer names for the same two sources.
  'ANSWER',
  'ANSWER_JSON',
] as const

export const DEFAULT_DNS_ASSERTION: Assertion = {
  source: 'RESPONSE_CODE',
  property: '',
  comparison: 'EQUALS',
  target: 'NOERROR',
  regex: null,
}

export interface DnsProbeDependencies {
  /** The OS's resolvers, first one used when a check names none (dns.getServers by default). */
  getServers?: () => string[]
  /** Resolves a nameServer given as a host name. */
  lookup?: HostLookup
}

export function createDnsProbe(dependencies: DnsProbeDependencies = {}): Probe<DnsCheck> {
  const tools: DnsProbeTools = { encode: createQueryEncoder(), clock: createDeadlineClock() }
  return (check, ctx) => runDnsCheck(check, ctx, dependencies, tools)
}

/** What one probe instance keeps for all its runs. */
interface DnsProbeTools {
  encode: QueryEncoder
  clock: DeadlineClock
}

interface Exchange {
  message: DecodedMessage
  protocol: 'UDP' | 'TCP'
  truncatedRetry: boolean
}

async function runDnsCheck(
  check: DnsCheck,
  ctx: ProbeContext,
  deps: DnsProbeDependencies,
  { encode, clock }: DnsProbeTools,
): Promise<ProbeOutcome> {
  const request = check.request
  const invalid = validate(check)
  if (invalid)
    return { status: 'failed', error: { code: 'INVALID_REQUEST', message: invalid }, assertions: [] }
  const deadline = clock.start(ctx.signal, check.maxResponseTime)
  let phase: Phase = 'dns'
  let server: NameServer | undefined
  let exchanged: Exchange
  try {
    // An IP literal needs no lookup; skipping the await keeps the common case a little cheaper.
    const { nameServer, port } = request
    server =
      nameServer && isIP(nameServer) !== 0
        ? { address: nameServer, port }
        : await nameServerFor(check, deps, deadline.signal)
    phase = 'request'
    exchanged = await exchangeQuery(server, check, encode, deadline.signal)
  } catch (err) {
    const where = server ? `${server.address}:${server.port}` : (request.nameServer ?? 'system resolver')
    const failedPhase = err instanceof PhaseError ? err.phase : phase
    const elapsed = deadline.elapsed()
    let error = deadline.signal.aborted
      ? timeoutError(
          failedPhase,
          `${request.query} ${request.recordType} @${where}`,
          elapsed,
          deadline.timedOut ? check.maxResponseTime : undefined,
        )
      : classifyNetworkError(err, failedPhase, where)
    // An unanswered UDP query may have met a closed port: ask once more, connected, to tell.
    if (deadline.timedOut && server && request.protocol === 'UDP' && !ctx.signal.aborted) {
      if (await udpRefused(server, encode(request.query, request.recordType).bytes)) {
        error = classifyNetworkError(
          Object.assign(new Error('ECONNREFUSED'), { code: 'ECONNREFUSED' }),
          'request',
          where,
        )
        error.message = `no answer from ${where} within ${Math.round(elapsed)} ms: nothing listening there (ICMP port unreachable)`
      }
    }
    return {
      status: 'failed',
      responseTimeMs: roundMs(elapsed),
      error: { code: error.code, message: error.message },
      assertions: [],
      details: { nameServer: server?.address ?? request.nameServer, port: server?.port, phase: failedPhase },
    }
  } finally {
    deadline.dispose()
  }
  const responseTimeMs = roundMs(deadline.elapsed())
  return judgeAnswer(check, server, exchanged, responseTimeMs)
}

function judgeAnswer(
  check: DnsCheck,
  server: NameServer,
  exchanged: Exchange,
  responseTimeMs: number,
): ProbeOutcome {
  const { message } = exchanged
  const lines = answerLines(message.answers)
  let json: JsonAnswer | undefined
  const jsonAnswer = (): JsonAnswer => {
    json ??= answerJson(message)
    return json
  }
  const userAssertions = check.request.assertions.length > 0
  const assertions = userAssertions ? check.request.assertions : [DEFAULT_DNS_ASSERTION]
  const evaluated = evaluateAssertions(assertions, (a) =>
    resolveDnsSource(a, message.rcode, responseTimeMs, lines, jsonAnswer),
  )
  const decision = decideStatus({
    responseTimeMs,
    degradedResponseTime: check.degradedResponseTime,
    maxResponseTime: check.maxResponseTime,
    assertionFailures: evaluated.failures,
  })
  // Without assertions of the user's, a bad rcode is the failure itself: name it as such.
  if (!userAssertions && decision.error?.code === 'ASSERTION_FAILED') {
    decision.error = {
      code: message.rcode === 'NXDOMAIN' ? 'DNS_NXDOMAIN' : 'DNS_FAILURE',
      message: `${server.address}:${server.port} answered ${message.rcode} for ${check.request.query} ${check.request.recordType}`,
    }
  }
  const outcome: ProbeOutcome = {
    status: decision.status,
    responseTimeMs,
    assertions: evaluated.results,
    details: {
      nameServer: server.address,
      port: server.port,
      protocol: exchanged.protocol,
      truncatedRetry: exchanged.truncatedRetry,
      rcode: message.rcode,
      flags: message.flags,
      answers: lines,
      authority: answerLines(message.authorities),
      answerJson: jsonAnswer(),
    },
  }
  if (decision.error) outcome.error = decision.error
  return outcome
}

export function resolveDnsSource(
  assertion: Assertion,
  rcode: string,
  responseTimeMs: number,
  lines: readonly string[],
  jsonAnswer: () => JsonAnswer,
): AssertionSubject {
  switch (assertion.source) {
    case 'RESPONSE_CODE':
      return { value: rcode }
    case 'RESPONSE_TIME':
      return { value: responseTimeMs }
    case 'TEXT_ANSWER':
    case 'ANSWER':
      return { value: lines.join('\n'), propertyIsRegex: true }
    case 'JSON_ANSWER':
    case 'ANSWER_JSON':
      return { value: assertion.property ? queryJsonPath(jsonAnswer(), assertion.property) : jsonAnswer() }
    default:
      return unsupportedSource(assertion, DNS_ASSERTION_SOURCES)
  }
}

async function exchangeQuery(
  server: NameServer,
  check: DnsCheck,
  encode: QueryEncoder,
  signal: StopSignal,
): Promise<Exchange> {
  const request = check.request
  const query = encode(request.query, request.recordType)
  if (request.protocol === 'TCP') {
    return {
      message: checked(await queryTcp(server, query.bytes, signal), query.id),
      protocol: 'TCP',
      truncatedRetry: false,
    }
  }
  const udp = checked(await queryUdp(server, query.id, query.bytes, signal), query.id)
  if (!udp.truncated) return { message: udp, protocol: 'UDP', truncatedRetry: false }
  // The full answer did not fit in a datagram: ask again over TCP (RFC 7766 §5).
  const retry = encode(request.query, request.recordType)
  return {
    message: checked(await queryTcp(server, retry.bytes, signal), retry.id),
    protocol: 'TCP',
    truncatedRetry: true,
  }
}

function checked(raw: RawAnswer, id: number): DecodedMessage {
  let message: DecodedMessage
  try {
    message = decodeMessage(raw.bytes)
  } catch (err) {
    throw new PhaseError('response', new CodedError('DNS_FAILURE', (err as Error).message))
  }
  if (message.id !== id || !message.isResponse) {
    throw new PhaseError(
      'response',
      new CodedError('DNS_FAILURE', `answer id ${message.id} does not match query id ${id}`),
    )
  }
  return message
}

async function nameServerFor(
  check: DnsCheck,
  deps: DnsProbeDependencies,
  signal: StopSignal,
): Promise<NameServer> {
  const { nameServer, port } = check.request
  if (nameServer) {
    if (isIP(nameServer) !== 0) return { address: nameServer, port }
    const resolved = await resolveHost(nameServer, 'IPv4', signal, deps.lookup)
    return { address: resolved.address, port }
  }
  const system = firstSystemResolver(deps.getServers ?? (() => dns.getServers()))
  if (!system) {
    throw new PhaseError(
      'dns',
      new CodedError(
        'DNS_FAILURE',
        'no nameServer given and the OS has no resolver configured (/etc/resolv.conf)',
      ),
    )
  }
  return system
}

function validate(check: DnsCheck): string | undefined {
  const r = check.request
  if (!r.query || typeof r.query !== 'string') return `request.query '${String(r.query)}' must be a host name`
  if (!DnsRecordType.includes(r.recordType)) {
    return `request.recordType '${String(r.recordType)}' is not supported (allowed: ${DnsRecordType.join(', ')})`
  }
  if (r.protocol !== 'UDP' && r.protocol !== 'TCP') {
    return `request.protocol '${String(r.protocol)}' is not supported (allowed: UDP, TCP)`
  }
  if (!Number.isInteger(r.port) || r.port < 1 || r.port > 65_535) {
    return `request.port '${String(r.port)}' is not allowed (an integer from 1 to 65535)`
  }
  return undefined
}
