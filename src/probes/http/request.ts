// An HTTP request the way a monitor makes it: a fresh connection for every hop, every phase timed,
// redirects followed by us (so each hop is timed and a cross-origin hop drops credentials), the
// body read up to a cap. Used by URL monitors and, later, API checks.

import type { IpFamily, KeyValuePair } from '../../model/checks.ts'
import type { Timings } from '../../model/result.ts'
import { type ResolveFamilyOptions, resolveFamily } from '../ip-family.ts'
import {
  type CertificateInfo,
  connectTcp,
  type HostLookup,
  matchingLiteral,
  resolveHost,
  stripBrackets,
  upgradeTls,
} from '../net/timed-connect.ts'
import { CodedError, type Phase, PhaseError } from '../network-errors.ts'
import type { StopSignal } from '../run-deadline.ts'
import { exchange } from './exchange.ts'

export interface HttpRequestOptions {
  /** A parsed URL is used as is (callers that validated it already save a parse). */
  url: string | URL
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'
  headers: readonly KeyValuePair[]
  body?: string
  followRedirects: boolean
  skipSSL: boolean
  ipFamily: IpFamily
  maxBodyBytes: number
  maxRedirects: number
  lookup?: HostLookup
  /** How to tell whether this host can use IPv6 (see ip-family.ts); the system's by default. */
  family?: ResolveFamilyOptions
}

export interface RedirectHop {
  url: string
  statusCode: number
  location: string
}

export interface HttpResult {
  /** The URL of the last hop (the one whose response is asserted on). */
  url: string
  statusCode: number
  statusMessage: string
  headers: Record<string, string | string[]>
  body: Buffer
  bodyTruncated: boolean
  /** Summed over every hop. */
  timings: Timings
  redirects: RedirectHop[]
  remoteAddress: string
  remoteFamily: 4 | 6
  /** Of the last HTTPS hop. */
  certificate?: CertificateInfo
  notes: string[]
}

/** Progress so far, so a failure can still report where it happened and what was measured. */
export interface HttpProgress {
  /** The phase under way and when it began, so a failure's time is charged to it. */
  phase: Phase
  phaseStartedAt: number
  url: string
  host: string
  port: number
  remoteAddress?: string
  timings: Timings
  redirects: RedirectHop[]
  /** Facts worth telling the user, such as an IPv6 check that fell back to IPv4. */
  notes: string[]
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'cookie', 'proxy-authorization'])

export class RequestInputError extends Error {
  override name = 'RequestInputError'
}

export function newProgress(url: URL): HttpProgress {
  return {
    phase: 'dns',
    phaseStartedAt: performance.now(),
    url: url.href,
    host: url.hostname,
    port: portOf(url),
    timings: { dns: 0, connect: 0, tls: 0, firstByte: 0, download: 0 },
    redirects: [],
    notes: [],
  }
}

export function parseHttpUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new RequestInputError(
      `request.url '${raw}' is not a valid URL (expected http://... or https://...)`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RequestInputError(`request.url '${raw}' uses ${url.protocol} (allowed: http:, https:)`)
  }
  return url
}

/** Runs the request; on failure throws a PhaseError, and `progress` says how far it got. */
export async function performHttpRequest(
  options: HttpRequestOptions,
  progress: HttpProgress,
  signal: StopSignal,
): Promise<HttpResult> {
  let url = typeof options.url === 'string' ? parseHttpUrl(options.url) : options.url
  let headers = options.headers
  const method = options.method
  let certificate: CertificateInfo | undefined
  for (let hop = 0; ; hop++) {
    progress.url = url.href
    progress.host = url.hostname
    progress.port = portOf(url)
    const host = stripBrackets(url.hostname)
    enter(progress, 'dns')
    let resolved = matchingLiteral(host, options.ipFamily)
    if (!resolved) {
      // An IPv6 check on a host without IPv6 falls back to IPv4 and says so (ip-family.ts).
      const family = await resolveFamily(options.ipFamily, host, options.family)
      const note = family.fallbackNote
      if (note && !progress.notes.includes(note)) progress.notes.push(note)
      enter(progress, 'dns')
      resolved = await resolveHost(host, family.family, signal, options.lookup)
    }
    progress.timings.dns += resolved.dnsMs
    progress.remoteAddress = resolved.address
    enter(progress, 'connect')
    const tcp = await connectTcp(resolved.address, progress.port, signal)
    progress.timings.connect += tcp.connectMs
    let socket = tcp.socket
    if (url.protocol === 'https:') {
      enter(progress, 'tls')
      const secure = await upgradeTls(
        socket,
        { host: url.hostname, rejectUnauthorized: !options.skipSSL, alpn: ['http/1.1'] },
        signal,
      )
      progress.timings.tls += secure.tlsMs
      socket = secure.socket
      certificate = secure.certificate
    }
    enter(progress, 'request')
    const response = await exchange(
      socket,
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers: flattenHeaders(headers),
        body: options.body,
        maxBodyBytes: options.maxBodyBytes,
      },
      signal,
    )
    progress.timings.firstByte += response.firstByteMs
    progress.timings.download += response.downloadMs
    const location = headerValue(response.headers, 'location')
    if (options.followRedirects && REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
      if (hop >= options.maxRedirects) {
        throw new PhaseError(
          'response',
          new CodedError(
            'TOO_MANY_REDIRECTS',
            `more than ${options.maxRedirects} redirects (last to ${location})`,
          ),
        )
      }
      progress.redirects.push({ url: url.href, statusCode: response.statusCode, location })
      const next = resolveLocation(location, url)
      // Like browsers: credentials set for one origin are not handed to another.
      if (next.origin !== url.origin)
        headers = headers.filter((h) => !CREDENTIAL_HEADERS.has(h.key.toLowerCase()))
      url = next
      continue
    }
    return {
      url: url.href,
      statusCode: response.statusCode,
      statusMessage: response.statusMessage,
      headers: response.headers,
      body: response.body,
      bodyTruncated: response.truncated,
      timings: progress.timings,
      redirects: progress.redirects,
      remoteAddress: resolved.address,
      remoteFamily: resolved.family,
      certificate,
      notes: progress.notes,
    }
  }
}

function enter(progress: HttpProgress, phase: Phase): void {
  progress.phase = phase
  progress.phaseStartedAt = performance.now()
}

/** Adds the time spent in the failed phase to its timing, so a refused connect shows its cost. */
export function chargeFailedPhase(progress: HttpProgress, now: number): void {
  const spent = now - progress.phaseStartedAt
  const t = progress.timings
  if (progress.phase === 'dns') t.dns += spent
  else if (progress.phase === 'connect') t.connect += spent
  else if (progress.phase === 'tls') t.tls += spent
  else t.firstByte += spent
}

export function headerValue(headers: Record<string, string | string[]>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

function resolveLocation(location: string, base: URL): URL {
  try {
    return parseHttpUrl(new URL(location, base).href)
  } catch (err) {
    throw new PhaseError(
      'response',
      new CodedError(
        'BAD_REDIRECT',
        `redirect to an unusable location '${location}': ${(err as Error).message}`,
      ),
    )
  }
}

function flattenHeaders(headers: readonly KeyValuePair[]): string[] {
  const flat: string[] = []
  for (const h of headers) flat.push(h.key, h.value)
  return flat
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port)
  return url.protocol === 'https:' ? 443 : 80
}
