// A fresh TCP (and optionally TLS) connection with each phase timed on its own: name lookup,
// TCP handshake, TLS handshake. URL monitors, API checks and TCP monitors all start here, so the
// numbers mean the same thing everywhere.

import { lookup } from 'node:dns/promises'
import net from 'node:net'
import tls from 'node:tls'
import type { IpFamily } from '../../model/checks.ts'
import { PhaseError } from '../network-errors.ts'
import { abortable, type StopSignal } from '../run-deadline.ts'

/** Name lookup as the OS does it (getaddrinfo: /etc/hosts, then DNS); tests and callers may pass their own. */
export type HostLookup = (hostname: string, family: 4 | 6) => Promise<{ address: string; family: number }>

export const systemLookup: HostLookup = (hostname, family) => lookup(hostname, { family })

/** The IPv6-fallback decision (ip-family.ts) asking the same lookup the probe uses. */
export function familyOptionsFor(lookupHost: HostLookup | undefined): {
  lookupAddresses?: (host: string, family: 4 | 6) => Promise<string[]>
} {
  if (!lookupHost) return {}
  return {
    lookupAddresses: (host, family) =>
      lookupHost(host, family).then(
        (found) => [found.address],
        () => [],
      ),
  }
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
  dnsMs: number
}

/** Resolves `host` for one family; an IP literal costs nothing and is used as given. */
export async function resolveHost(
  host: string,
  ipFamily: IpFamily,
  signal: StopSignal,
  lookupHost: HostLookup = systemLookup,
): Promise<ResolvedAddress> {
  const bare = stripBrackets(host)
  const literal = net.isIP(bare)
  if (literal !== 0) return { address: bare, family: literal === 6 ? 6 : 4, dnsMs: 0 }
  const started = performance.now()
  try {
    // getaddrinfo cannot be cancelled; stop waiting on abort and let it finish in the background.
    const found = await abortable(lookupHost(bare, ipFamily === 'IPv6' ? 6 : 4), signal)
    return { address: found.address, family: found.family === 6 ? 6 : 4, dnsMs: performance.now() - started }
  } catch (err) {
    throw new PhaseError('dns', err)
  }
}

export interface TcpConnection {
  socket: net.Socket
  connectMs: number
}

/**
 * An IP literal of the family asked for: nothing to look up and no fallback to decide, so callers
 * skip both (and their awaits) on the path most monitors of internal services take.
 */
export function matchingLiteral(host: string, ipFamily: IpFamily): ResolvedAddress | undefined {
  const literal = net.isIP(host)
  if (literal === 4 && ipFamily === 'IPv4') return { address: host, family: 4, dnsMs: 0 }
  if (literal === 6 && ipFamily === 'IPv6') return { address: host, family: 6, dnsMs: 0 }
  return undefined
}

/** `noDelay`: off for a bare connect (one syscall less), on when small writes follow each other. */
export function connectTcp(
  address: string,
  port: number,
  signal: StopSignal,
  noDelay = true,
): Promise<TcpConnection> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new PhaseError('connect', signal.reason))
      return
    }
    const started = performance.now()
    const socket = net.connect({ host: address, port, noDelay })
    const cleanup = (): void => {
      socket.off('connect', onConnect)
      socket.off('error', onError)
      signal.removeEventListener('abort', onAbort)
    }
    const onConnect = (): void => {
      cleanup()
      resolve({ socket, connectMs: performance.now() - started })
    }
    const onError = (err: Error): void => {
      cleanup()
      socket.destroy()
      reject(new PhaseError('connect', err))
    }
    const onAbort = (): void => {
      cleanup()
      socket.destroy()
      reject(new PhaseError('connect', signal.reason))
    }
    socket.once('connect', onConnect)
    socket.once('error', onError)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export interface CertificateInfo {
  subject?: string
  issuer?: string
  validFrom?: string
  validTo?: string
  /** Whole days until validTo; negative once expired. */
  daysRemaining?: number
  /** Whether the chain verified against the trust store (false is only possible with skipSSL). */
  authorized: boolean
  authorizationError?: string
}

export interface TlsConnection {
  socket: tls.TLSSocket
  tlsMs: number
  certificate: CertificateInfo
}

export interface TlsOptions {
  /** SNI and certificate host name; IP literals are not sent as SNI. */
  host: string
  rejectUnauthorized: boolean
  alpn: string[]
  now?: () => number
}

export function upgradeTls(
  socket: net.Socket,
  options: TlsOptions,
  signal: StopSignal,
): Promise<TlsConnection> {
  return new Promise((resolve, reject) => {
    // A listener added after the abort would never run: check first.
    if (signal.aborted) {
      socket.destroy()
      reject(new PhaseError('tls', signal.reason))
      return
    }
    const started = performance.now()
    const host = stripBrackets(options.host)
    const secure = tls.connect({
      socket,
      servername: net.isIP(host) === 0 ? host : undefined,
      rejectUnauthorized: options.rejectUnauthorized,
      ALPNProtocols: options.alpn,
    })
    const cleanup = (): void => {
      secure.off('secureConnect', onSecure)
      secure.off('error', onError)
      signal.removeEventListener('abort', onAbort)
    }
    const onSecure = (): void => {
      cleanup()
      const tlsMs = performance.now() - started
      resolve({ socket: secure, tlsMs, certificate: describeCertificate(secure, options.now ?? Date.now) })
    }
    const onError = (err: Error): void => {
      cleanup()
      secure.destroy()
      reject(new PhaseError('tls', err))
    }
    const onAbort = (): void => {
      cleanup()
      secure.destroy()
      reject(new PhaseError('tls', signal.reason))
    }
    secure.once('secureConnect', onSecure)
    secure.once('error', onError)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

const DAY_MS = 86_400_000

function describeCertificate(socket: tls.TLSSocket, now: () => number): CertificateInfo {
  const info: CertificateInfo = { authorized: socket.authorized }
  if (!socket.authorized && socket.authorizationError)
    info.authorizationError = String(socket.authorizationError)
  const cert = socket.getPeerCertificate(false)
  if (!cert || Object.keys(cert).length === 0) return info
  const subject = firstValue(cert.subject?.CN)
  const issuer = firstValue(cert.issuer?.CN) ?? firstValue(cert.issuer?.O)
  if (subject) info.subject = subject
  if (issuer) info.issuer = issuer
  const validFrom = Date.parse(cert.valid_from)
  const validTo = Date.parse(cert.valid_to)
  if (Number.isFinite(validFrom)) info.validFrom = new Date(validFrom).toISOString()
  if (Number.isFinite(validTo)) {
    info.validTo = new Date(validTo).toISOString()
    info.daysRemaining = Math.floor((validTo - now()) / DAY_MS)
  }
  return info
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}
