// Which IP family a probe really uses. A check may ask for IPv6 on a host where IPv6 is switched off
// (kernel built or booted without it, `disable_ipv6`, or simply no IPv6 route); then the probe falls
// back to IPv4 and says so, rather than failing on a property of the agent's host instead of the target.

import { createSocket } from 'node:dgram'
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { IpFamily } from '../model/checks.ts'

export interface FamilyDecision {
  family: IpFamily
  /** Set when the family used differs from the one asked for; goes into the result as a note. */
  fallbackNote?: string
}

export type RouteCheck = { ok: true } | { ok: false; reason: string }

export interface ResolveFamilyOptions {
  /** Addresses of `host` in one family; empty when it has none. */
  lookupAddresses?: (host: string, family: 4 | 6) => Promise<string[]>
  /** Whether this host could send a packet to `address` (no packet is sent). */
  checkRoute?: (address: string) => Promise<RouteCheck>
}

/**
 * Decides the family for `host`. Only a host-side lack of IPv6 triggers the fallback: a name without
 * IPv6 addresses on a host that has IPv6 stays IPv6, so the probe fails and reports that plainly.
 */
export async function resolveFamily(
  requested: IpFamily,
  host: string,
  options: ResolveFamilyOptions = {},
): Promise<FamilyDecision> {
  const lookupAddresses = options.lookupAddresses ?? lookupFamilyAddresses
  const checkRoute = options.checkRoute ?? checkIpv6Route
  const literal = isIP(host)
  if (literal === 4) {
    return requested === 'IPv4'
      ? { family: 'IPv4' }
      : {
          family: 'IPv4',
          fallbackNote: `${host} is an IPv4 address, so IPv4 was used although IPv6 was asked for`,
        }
  }
  if (literal === 6) {
    return requested === 'IPv6'
      ? { family: 'IPv6' }
      : {
          family: 'IPv6',
          fallbackNote: `${host} is an IPv6 address, so IPv6 was used although IPv4 was asked for`,
        }
  }
  if (requested === 'IPv4') return { family: 'IPv4' }

  const v6 = await lookupAddresses(host, 6)
  const first = v6[0]
  if (first === undefined) return { family: 'IPv6' }
  const route = await checkRoute(first)
  if (route.ok) return { family: 'IPv6' }
  const v4 = await lookupAddresses(host, 4)
  if (v4.length === 0) return { family: 'IPv6' }
  return {
    family: 'IPv4',
    fallbackNote: `IPv6 is not available on this agent's host (${route.reason}); fell back to IPv4 for ${host}`,
  }
}

export async function lookupFamilyAddresses(host: string, family: 4 | 6): Promise<string[]> {
  try {
    // hints 0 (no ADDRCONFIG): we want the name's addresses, then judge the host's IPv6 ourselves.
    const found = await lookup(host, { family, all: true, hints: 0 })
    return found.map((a) => a.address)
  } catch {
    return []
  }
}

/**
 * A UDP connect() makes the kernel pick a route and a source address without sending anything, so
 * it answers "could we reach this address over IPv6?" with no traffic. It fails with EAFNOSUPPORT
 * when the kernel has no IPv6, EADDRNOTAVAIL when IPv6 is disabled, ENETUNREACH without a route.
 */
export function checkIpv6Route(address: string): Promise<RouteCheck> {
  // A name here would make dgram resolve it: only literals, so this check never causes traffic.
  if (isIP(address) !== 6)
    return Promise.resolve({ ok: false, reason: `"${address}" is not an IPv6 address` })
  return new Promise((resolve) => {
    let socket: ReturnType<typeof createSocket>
    try {
      socket = createSocket({ type: 'udp6' })
    } catch (error) {
      resolve({ ok: false, reason: describeSocketError(error) })
      return
    }
    const finish = (result: RouteCheck): void => {
      socket.removeAllListeners()
      socket.on('error', () => {})
      try {
        socket.close()
      } catch {
        // already closed after a failed bind
      }
      resolve(result)
    }
    socket.once('error', (error) => finish({ ok: false, reason: describeSocketError(error) }))
    try {
      // Port 9 (discard) is arbitrary: connect() on UDP only records the peer. Node reports a failed
      // connect through the callback's argument, not through 'error'.
      socket.connect(9, address, (error?: unknown) => {
        finish(error ? { ok: false, reason: describeSocketError(error) } : { ok: true })
      })
    } catch (error) {
      finish({ ok: false, reason: describeSocketError(error) })
    }
  })
}

/** Host-level IPv6 support, for logging once at start: can we reach our own IPv6 loopback? */
export async function detectIpv6Support(): Promise<{ available: boolean; message: string }> {
  const route = await checkIpv6Route('::1')
  return route.ok
    ? { available: true, message: 'IPv6 is available' }
    : {
        available: false,
        message: `IPv6 is not available (${route.reason}); IPv6 checks will fall back to IPv4`,
      }
}

function describeSocketError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EAFNOSUPPORT') return 'the kernel does not support IPv6 (EAFNOSUPPORT)'
    if (code === 'EADDRNOTAVAIL') return 'IPv6 is disabled on this host (EADDRNOTAVAIL)'
    if (code === 'ENETUNREACH') return 'no IPv6 route (ENETUNREACH)'
    return code ? `${code}: ${error.message}` : error.message
  }
  return String(error)
}
