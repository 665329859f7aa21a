// ICMP probe: `pingCount` echo requests at 0.2 s through the system ping, parsed to numbers, judged by
// packet-loss thresholds and LATENCY / PACKET_LOSS assertions. Every failure of the tool itself (not
// installed, not permitted, name not resolvable) is a failed result that says how to fix it.

import type { IcmpCheck, IpFamily } from '../model/checks.ts'
import type { Probe, ProbeOutcome } from '../model/probe.ts'
import type { ResultError, ResultStatus } from '../model/result.ts'
import { evaluateIcmpAssertions } from './icmp-assertions.ts'
import { ICMP_INSTALL_HINT, ICMP_PERMISSION_HINT } from './icmp-capability.ts'
import { type PingRun, runPing } from './icmp-command.ts'
import { type IcmpStats, parsePingOutput } from './icmp-parse.ts'
import { type ResolveFamilyOptions, resolveFamily } from './ip-family.ts'

export const ICMP_MAX_PING_COUNT = 50
export const ICMP_INTERVAL_SECONDS = 0.2
/** How long ping waits for the last replies after sending the last request. */
export const ICMP_REPLY_TIMEOUT_SECONDS = 2

export interface IcmpProbeOptions {
  /** The ping executable: a name looked up in PATH, or an absolute path. */
  command?: string
  path?: string
  family?: ResolveFamilyOptions
}

export interface IcmpDetails {
  host: string
  requestedFamily: IpFamily
  family: IpFamily
  pingCount: number
  address: string | null
  packetsSent: number | null
  packetsReceived: number | null
  packetLoss: number | null
  min: number | null
  avg: number | null
  max: number | null
  stdDev: number | null
  rtts: number[]
}

export function createIcmpProbe(options: IcmpProbeOptions = {}): Probe<IcmpCheck> {
  const command = options.command ?? 'ping'
  return async (check, ctx) => {
    const invalid = validateIcmpCheck(check)
    if (invalid !== null) return failed({ code: 'INVALID_CHECK', message: invalid })
    const { hostname, ipFamily, pingCount } = check.request
    const decision = await resolveFamily(ipFamily, hostname, options.family)
    const notes = decision.fallbackNote ? [decision.fallbackNote] : []
    if (decision.fallbackNote) ctx.log.info({ host: hostname }, decision.fallbackNote)
    const run = await runPing({
      command,
      host: hostname,
      family: decision.family,
      count: pingCount,
      intervalSeconds: ICMP_INTERVAL_SECONDS,
      replyTimeoutSeconds: ICMP_REPLY_TIMEOUT_SECONDS,
      signal: ctx.signal,
      ...(options.path !== undefined ? { path: options.path } : {}),
    })
    const base = { host: hostname, requestedFamily: ipFamily, family: decision.family, pingCount }
    if (run.kind === 'spawn-error') {
      return failed(spawnError(command, run), { icmp: detailsOf(base, null), notes })
    }
    const stats = parsePingOutput(hostname, run.stdout)
    const details = { icmp: detailsOf(base, stats), notes }
    if (run.kind === 'aborted') return failed(abortError(hostname, ctx.signal.reason), details)
    if (stats.transmitted === null) return failed(toolError(hostname, run), details)
    if (stats.received === 0) {
      const why = firstMatchingLine(run.stdout, /^From .*/) ?? firstLine(run.stderr)
      return failed(
        {
          code: 'NO_REPLY',
          message: `no reply to ${stats.transmitted} echo requests to ${hostname}${stats.address ? ` (${stats.address})` : ''}${why ? `: ${why}` : ''}`,
        },
        details,
        evaluateIcmpAssertions(check.request.assertions, stats).results,
      )
    }
    return judge(check, stats, details)
  }
}

/** The probe with the system ping from PATH. */
export const icmpProbe: Probe<IcmpCheck> = createIcmpProbe()

function judge(check: IcmpCheck, stats: IcmpStats, details: Record<string, unknown>): ProbeOutcome {
  const evaluation = evaluateIcmpAssertions(check.request.assertions, stats)
  const loss = stats.packetLoss ?? 100
  const responseTimeMs = stats.avg ?? undefined
  const outcome = (status: ResultStatus, error?: ResultError): ProbeOutcome => ({
    status,
    ...(responseTimeMs !== undefined ? { responseTimeMs } : {}),
    ...(error ? { error } : {}),
    assertions: evaluation.results,
    details,
  })
  if (evaluation.failures.length > 0) {
    const more = evaluation.failures.length > 1 ? ` (and ${evaluation.failures.length - 1} more)` : ''
    return outcome('failed', { code: 'ASSERTION_FAILED', message: `${evaluation.failures[0]}${more}` })
  }
  if (overThreshold(loss, check.maxPacketLossThreshold)) {
    return outcome('failed', {
      code: 'PACKET_LOSS',
      message: `packet loss ${loss}% reached maxPacketLossThreshold ${check.maxPacketLossThreshold}%`,
    })
  }
  // Like a slow URL response, degraded carries no error: details.icmp.packetLoss says how much.
  if (overThreshold(loss, check.degradedPacketLossThreshold)) return outcome('degraded')
  return outcome('passed')
}

/** "At or above the threshold" as in Checkly; a threshold of 0 still needs some loss to trigger. */
function overThreshold(loss: number, threshold: number): boolean {
  return loss > 0 && loss >= threshold
}

export function validateIcmpCheck(check: IcmpCheck): string | null {
  const { hostname, pingCount, ipFamily } = check.request
  if (typeof hostname !== 'string' || hostname.trim() === '') {
    return 'request.hostname is empty; give a host name or an IP address'
  }
  if (hostname.length > 253 || /[\s\p{Cc}]/u.test(hostname) || hostname.startsWith('-')) {
    return `request.hostname "${hostname}" is not a host name or IP address (no spaces, no leading "-", at most 253 characters)`
  }
  if (!Number.isInteger(pingCount) || pingCount < 1 || pingCount > ICMP_MAX_PING_COUNT) {
    return `request.pingCount is ${pingCount}; allowed: a whole number from 1 to ${ICMP_MAX_PING_COUNT}`
  }
  if (ipFamily !== 'IPv4' && ipFamily !== 'IPv6') {
    return `request.ipFamily is "${ipFamily}"; allowed: IPv4, IPv6`
  }
  for (const field of ['degradedPacketLossThreshold', 'maxPacketLossThreshold'] as const) {
    const value = check[field]
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
      return `${field} is ${value}; allowed: a percentage from 0 to 100`
    }
  }
  return null
}

function detailsOf(base: Omit<IcmpDetails, keyof IcmpStatsFields>, stats: IcmpStats | null): IcmpDetails {
  return {
    ...base,
    address: stats?.address ?? null,
    packetsSent: stats?.transmitted ?? null,
    packetsReceived: stats?.received ?? null,
    packetLoss: stats?.packetLoss ?? null,
    min: stats?.min ?? null,
    avg: stats?.avg ?? null,
    max: stats?.max ?? null,
    stdDev: stats?.stdDev ?? null,
    rtts: stats?.rtts ?? [],
  }
}

type IcmpStatsFields = Pick<
  IcmpDetails,
  'address' | 'packetsSent' | 'packetsReceived' | 'packetLoss' | 'min' | 'avg' | 'max' | 'stdDev' | 'rtts'
>

/** The agent aborts with a reason carrying a code (TIMEOUT, SHUTDOWN); a bare AbortSignal.timeout() too. */
function abortError(host: string, reason: unknown): ResultError {
  const code =
    typeof reason === 'object' && reason !== null && typeof (reason as { code?: unknown }).code === 'string'
      ? (reason as { code: string }).code
      : reason instanceof Error && reason.name === 'TimeoutError'
        ? 'TIMEOUT'
        : 'ABORTED'
  const why = reason instanceof Error ? reason.message : 'run aborted'
  return { code, message: `ping to ${host} was stopped before it finished: ${why}` }
}

function spawnError(command: string, run: Extract<PingRun, { kind: 'spawn-error' }>): ResultError {
  if (run.code === 'ENOENT') {
    return { code: 'PING_NOT_FOUND', message: `"${command}" was not found; ${ICMP_INSTALL_HINT}` }
  }
  if (run.code === 'EACCES' || run.code === 'EPERM') {
    return {
      code: 'ICMP_NOT_PERMITTED',
      message: `"${command}" cannot be executed (${run.code}); ${ICMP_PERMISSION_HINT}`,
    }
  }
  return { code: 'PING_FAILED', message: `"${command}" could not be started: ${run.message}` }
}

/** ping stopped before sending: classify its complaint on stderr. */
function toolError(host: string, run: Extract<PingRun, { kind: 'exited' }>): ResultError {
  const text = `${run.stderr}\n${run.stdout}`
  const dns = firstMatchingLine(
    text,
    /Name or service not known|Temporary failure in name resolution|No address associated|unknown host/i,
  )
  if (dns) return { code: 'DNS_FAILURE', message: `could not resolve ${host}: ${dns}` }
  const family = firstMatchingLine(text, /Address family for hostname not supported/i)
  if (family)
    return { code: 'DNS_FAILURE', message: `${host} has no address in the requested IP family: ${family}` }
  // iputils prints several lines here ("socktype: SOCK_RAW", "socket: Operation not permitted", a hint).
  const permission = firstMatchingLine(text, /Operation not permitted|Permission denied/i)
  if (permission) return { code: 'ICMP_NOT_PERMITTED', message: `${permission}; ${ICMP_PERMISSION_HINT}` }
  const network = firstMatchingLine(
    text,
    /Network is unreachable|No route to host|Cannot assign requested address/i,
  )
  if (network) return { code: 'NETWORK_UNREACHABLE', message: `cannot reach ${host}: ${network}` }
  const line = firstLine(run.stderr) ?? firstLine(run.stdout) ?? `ping exited with status ${run.exitCode}`
  return { code: 'PING_FAILED', message: `ping to ${host} failed: ${line}` }
}

function failed(
  error: ResultError,
  details?: Record<string, unknown>,
  assertions: ProbeOutcome['assertions'] = [],
): ProbeOutcome {
  return { status: 'failed', error, assertions, ...(details ? { details } : {}) }
}

function firstLine(text: string): string | null {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '')
  return line ?? null
}

function firstMatchingLine(text: string, pattern: RegExp): string | null {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => pattern.test(l)) ?? null
  )
}
