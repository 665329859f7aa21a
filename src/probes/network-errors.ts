// Node's and undici's socket errors mapped to the stable codes results carry, with a message a
// person can act on. `connectionLevel` marks the failures that network diagnostics explain
// (the path to the host, not the server's answer).

import type { ResultError } from '../model/result.ts'

export const NetworkErrorCode = {
  TIMEOUT: 'TIMEOUT',
  CONNECTION_REFUSED: 'CONNECTION_REFUSED',
  CONNECTION_RESET: 'CONNECTION_RESET',
  HOST_UNREACHABLE: 'HOST_UNREACHABLE',
  NETWORK_UNREACHABLE: 'NETWORK_UNREACHABLE',
  DNS_NXDOMAIN: 'DNS_NXDOMAIN',
  DNS_FAILURE: 'DNS_FAILURE',
  TLS_ERROR: 'TLS_ERROR',
  PROTOCOL_ERROR: 'PROTOCOL_ERROR',
  INVALID_REQUEST: 'INVALID_REQUEST',
  NETWORK_ERROR: 'NETWORK_ERROR',
} as const
export type NetworkErrorCode = (typeof NetworkErrorCode)[keyof typeof NetworkErrorCode]

/** Where in a request the failure happened; timings and diagnostics depend on it. */
export type Phase = 'dns' | 'connect' | 'tls' | 'request' | 'response'

export interface ClassifiedError extends ResultError {
  phase: Phase
  connectionLevel: boolean
}

const CONNECTION_LEVEL: ReadonlySet<string> = new Set([
  'TIMEOUT',
  'CONNECTION_REFUSED',
  'CONNECTION_RESET',
  'HOST_UNREACHABLE',
  'NETWORK_UNREACHABLE',
  'DNS_NXDOMAIN',
  'DNS_FAILURE',
])

/** An error raised by a phase of a probe, carrying the phase so the cause can be explained. */
export class PhaseError extends Error {
  override name = 'PhaseError'
  readonly phase: Phase
  constructor(phase: Phase, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
    this.phase = phase
  }
}

/** A failure with its own stable code (TOO_MANY_REDIRECTS, ...), passed through unchanged. */
export class CodedError extends Error {
  override name = 'CodedError'
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
  }
}

/** `limitMs`: the check's maxResponseTime when that is what stopped the run, named in the message. */
export function timeoutError(
  phase: Phase,
  target: string,
  afterMs: number,
  limitMs?: number,
): ClassifiedError {
  const limit = limitMs ? ` (maxResponseTime ${limitMs} ms)` : ''
  return {
    code: 'TIMEOUT',
    phase,
    // A timeout before the server answered says as much about the path as a refusal does.
    connectionLevel: phase === 'dns' || phase === 'connect' || phase === 'tls',
    message: `timed out after ${Math.round(afterMs)} ms${limit} during ${phaseName(phase)} (${target})`,
  }
}

export function classifyNetworkError(err: unknown, phase: Phase, target: string): ClassifiedError {
  const coded =
    err instanceof CodedError
      ? err
      : err instanceof PhaseError && err.cause instanceof CodedError
        ? err.cause
        : undefined
  if (coded) return { code: coded.code, phase, connectionLevel: false, message: coded.message }
  const code = errorCode(err)
  const detail = err instanceof Error ? err.message : String(err)
  const root = err instanceof PhaseError ? err.cause : err
  // A bug of ours is not the network's fault: say so instead of calling it a DNS failure.
  if (
    code === undefined &&
    (root instanceof TypeError || root instanceof ReferenceError || root instanceof RangeError)
  ) {
    return {
      code: 'INTERNAL_ERROR',
      phase,
      connectionLevel: false,
      message: `internal error in the probe: ${detail}`,
    }
  }
  const make = (c: NetworkErrorCode, message: string): ClassifiedError => ({
    code: c,
    phase,
    connectionLevel: CONNECTION_LEVEL.has(c) && phase !== 'response',
    message,
  })
  switch (code) {
    case 'ECONNREFUSED':
      return make('CONNECTION_REFUSED', `connection refused by ${target} (nothing listening on the port)`)
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return make('CONNECTION_RESET', `connection reset by ${target} during ${phaseName(phase)}`)
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return make('TIMEOUT', `timed out during ${phaseName(phase)} (${target})`)
    case 'EHOSTUNREACH':
    case 'EHOSTDOWN':
      return make('HOST_UNREACHABLE', `host unreachable: ${target} (no route to host)`)
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
      return make('NETWORK_UNREACHABLE', `network unreachable for ${target} (${code})`)
    case 'ENOTFOUND':
    case 'ENODATA':
    case 'NXDOMAIN':
      return make('DNS_NXDOMAIN', `hostname not found: ${target} (no address of the requested family)`)
    case 'UND_ERR_INVALID_ARG':
    case 'ERR_INVALID_CHAR':
    case 'ERR_INVALID_HTTP_TOKEN':
      return make('INVALID_REQUEST', `the request to ${target} cannot be sent as given: ${detail}`)
    case 'EAI_AGAIN':
    case 'ESERVFAIL':
    case 'ETIMEOUT':
      return make('DNS_FAILURE', `DNS lookup failed for ${target}: ${code}`)
  }
  if (code && (isTlsCode(code) || phase === 'tls')) {
    return make('TLS_ERROR', `TLS handshake with ${target} failed: ${detail} (${code})`)
  }
  if (phase === 'tls') return make('TLS_ERROR', `TLS handshake with ${target} failed: ${detail}`)
  if (phase === 'dns') return make('DNS_FAILURE', `DNS lookup failed for ${target}: ${detail}`)
  if (code?.startsWith('HPE_') || code === 'UND_ERR_INFO') {
    return make('PROTOCOL_ERROR', `invalid HTTP response from ${target}: ${detail}`)
  }
  return make(
    'NETWORK_ERROR',
    `${phaseName(phase)} to ${target} failed: ${detail}${code ? ` (${code})` : ''}`,
  )
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') return code
  const cause = (err as { cause?: unknown }).cause
  return cause === undefined ? undefined : errorCode(cause)
}

function isTlsCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.includes('CERT') ||
    code.includes('SELF_SIGNED') ||
    code === 'EPROTO'
  )
}

function phaseName(phase: Phase): string {
  switch (phase) {
    case 'dns':
      return 'DNS lookup'
    case 'connect':
      return 'TCP connect'
    case 'tls':
      return 'TLS handshake'
    case 'request':
      return 'sending the request'
    case 'response':
      return 'reading the response'
  }
}
