// The family decision. The fallback itself, on a host where IPv6 is really disabled, is proven in
// icmp-netns.test.ts; here the decision rules, with lookups and route checks passed in, plus the real
// route check on this host's IPv6 loopback.

import { describe, expect, it } from 'vitest'
import { checkIpv6Route, type ResolveFamilyOptions, resolveFamily } from '../../src/probes/ip-family.ts'

function world(addresses: { v4?: string[]; v6?: string[] }, route: 'ok' | 'refused'): ResolveFamilyOptions {
  return {
    lookupAddresses: async (_host, family) => (family === 6 ? (addresses.v6 ?? []) : (addresses.v4 ?? [])),
    checkRoute: async () =>
      route === 'ok' ? { ok: true } : { ok: false, reason: 'no IPv6 route (ENETUNREACH)' },
  }
}

describe('resolveFamily', () => {
  it('keeps IPv6 for a dual-stack name when the host can route IPv6', async () => {
    const decision = await resolveFamily(
      'IPv6',
      'dual.test',
      world({ v4: ['198.18.0.2'], v6: ['2001:db8::2'] }, 'ok'),
    )
    expect(decision).toEqual({ family: 'IPv6' })
  })

  it('falls back to IPv4 with a note when the host cannot route IPv6', async () => {
    const decision = await resolveFamily(
      'IPv6',
      'dual.test',
      world({ v4: ['198.18.0.2'], v6: ['2001:db8::2'] }, 'refused'),
    )
    expect(decision).toEqual({
      family: 'IPv4',
      fallbackNote:
        "IPv6 is not available on this agent's host (no IPv6 route (ENETUNREACH)); fell back to IPv4 for dual.test",
    })
  })

  it('does not fall back when the name has no IPv4 address to fall back to', async () => {
    expect(await resolveFamily('IPv6', 'v6only.test', world({ v6: ['2001:db8::2'] }, 'refused'))).toEqual({
      family: 'IPv6',
    })
  })

  it('stays IPv6 for a name without IPv6 addresses: the target, not the host, lacks IPv6', async () => {
    expect(await resolveFamily('IPv6', 'v4only.test', world({ v4: ['198.18.0.2'] }, 'ok'))).toEqual({
      family: 'IPv6',
    })
  })

  it('never changes an IPv4 request for a name', async () => {
    expect(
      await resolveFamily('IPv4', 'dual.test', world({ v4: ['198.18.0.2'], v6: ['::1'] }, 'ok')),
    ).toEqual({
      family: 'IPv4',
    })
  })

  it('lets an address literal decide, noting a mismatch with the request', async () => {
    const none = world({}, 'refused')
    expect(await resolveFamily('IPv4', '127.0.0.1', none)).toEqual({ family: 'IPv4' })
    expect(await resolveFamily('IPv6', '::1', none)).toEqual({ family: 'IPv6' })
    expect((await resolveFamily('IPv6', '127.0.0.1', none)).fallbackNote).toContain(
      '127.0.0.1 is an IPv4 address',
    )
    expect((await resolveFamily('IPv4', '::1', none)).fallbackNote).toContain('::1 is an IPv6 address')
  })
})

describe('checkIpv6Route', () => {
  it('succeeds for this host’s IPv6 loopback without sending anything', async () => {
    expect(await checkIpv6Route('::1')).toEqual({ ok: true })
  })

  it('refuses anything but an IPv6 literal, so it never triggers a name lookup', async () => {
    expect(await checkIpv6Route('localhost')).toEqual({
      ok: false,
      reason: '"localhost" is not an IPv6 address',
    })
    expect(await checkIpv6Route('127.0.0.1')).toEqual({
      ok: false,
      reason: '"127.0.0.1" is not an IPv6 address',
    })
  })
})
