// The ICMP probe across network namespaces: a lossy, slow host (raw-socket responder standing in for
// netem), an unreachable one, an unresolvable name, the IPv4 fallback where IPv6 is disabled, and ping
// run as an unprivileged user. The probe runs in a child process inside the client namespace.

import { execFile } from 'node:child_process'
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IcmpCheck } from '../../src/model/checks.ts'
import type { ProbeOutcome } from '../../src/model/probe.ts'
import type { IcmpDetails } from '../../src/probes/icmp.ts'
import type { IcmpCapability } from '../../src/probes/icmp-capability.ts'
import type { FamilyDecision } from '../../src/probes/ip-family.ts'
import { baseFields } from '../helpers/definitions.ts'
import { createNetnsLab, type NetnsLab, netnsSupport, waitForLine } from '../helpers/netns.ts'

const support = await netnsSupport()
const runner = join(import.meta.dirname, '../helpers/netns-probe-runner.ts')
const responder = join(import.meta.dirname, '../helpers/netns-echo-responder.py')
const NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
const DUAL_STACK_HOSTS = '127.0.0.1 localhost\n::1 localhost ip6-localhost\n'

function icmpOf(outcome: ProbeOutcome): IcmpDetails {
  return outcome.details?.icmp as IcmpDetails
}

function icmpCheck(request: Partial<IcmpCheck['request']>, rest: Partial<IcmpCheck> = {}): IcmpCheck {
  return {
    type: 'ICMP',
    ...baseFields('icmp-netns', 'ICMP netns'),
    request: { hostname: '198.18.0.2', ipFamily: 'IPv4', pingCount: 3, assertions: [], ...request },
    degradedPacketLossThreshold: 10,
    maxPacketLossThreshold: 90,
    ...rest,
  }
}

describe.skipIf(!support.ok)(
  `ICMP in network namespaces${support.ok ? '' : ` (skipped: ${support.reason})`}`,
  () => {
    let lab: NetnsLab
    let client: string
    let v6off: string
    let v6on: string
    let strict: string
    let open: string
    let caplessDir: string

    async function inNamespace<T>(ns: string, request: unknown, asUser: string[] = []): Promise<T> {
      const result = await lab.exec(ns, asUser[0] ?? process.execPath, [
        ...(asUser.length > 0 ? [...asUser.slice(1), process.execPath] : []),
        runner,
        JSON.stringify(request),
      ])
      if (result.code !== 0) throw new Error(`runner failed (${result.code}): ${result.stderr}`)
      return JSON.parse(result.stdout) as T
    }

    beforeAll(async () => {
      lab = createNetnsLab('icmp')
      client = await lab.addNamespace('cli')
      const server = await lab.addNamespace('srv')
      await lab.link({ ns: client, cidr: '198.18.0.1/29' }, { ns: server, cidr: '198.18.0.2/29' })
      // The kernel stays silent; the responder answers 70% of requests after 20 ms.
      await lab.sysctl(server, 'net.ipv4.icmp_echo_ignore_all', '1')
      await waitForLine(lab.start(server, 'python3', [responder, '0.3', '0.02', '7']), 'ready')
      // Name lookups inside the client go to a loopback port with no server: fast, and never leave it.
      await lab.etcFile(client, 'resolv.conf', 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n')

      v6off = await lab.addNamespace('v6off')
      await lab.etcFile(v6off, 'hosts', DUAL_STACK_HOSTS)
      for (const key of ['all', 'default', 'lo'])
        await lab.sysctl(v6off, `net.ipv6.conf.${key}.disable_ipv6`, '1')
      v6on = await lab.addNamespace('v6on')
      await lab.etcFile(v6on, 'hosts', DUAL_STACK_HOSTS)

      strict = await lab.addNamespace('strict')
      await lab.sysctl(strict, 'net.ipv4.ping_group_range', '1 0')
      open = await lab.addNamespace('open')
      await lab.sysctl(open, 'net.ipv4.ping_group_range', '0 2147483647')
      // A copy of ping loses its file capability (cp keeps no xattrs): only ping_group_range can help it.
      caplessDir = await mkdtemp(join(tmpdir(), 'outpost-capless-ping-'))
      await chmod(caplessDir, 0o755)
      const pingPath = (await promisify(execFile)('sh', ['-c', 'command -v ping'])).stdout.trim()
      await copyFile(pingPath, join(caplessDir, 'ping'))
      await chmod(join(caplessDir, 'ping'), 0o755)
    })

    afterAll(async () => {
      await lab?.cleanup()
      if (caplessDir) await rm(caplessDir, { recursive: true, force: true })
    })

    it('reports packet loss and latency from a host that drops ~30% and answers after 20 ms', async () => {
      const check = icmpCheck(
        {
          pingCount: 50,
          assertions: [
            { source: 'LATENCY', property: 'avg', comparison: 'GREATER_THAN', target: '18' },
            { source: 'PACKET_LOSS', property: '', comparison: 'LESS_THAN', target: '60' },
          ],
        },
        { degradedPacketLossThreshold: 5, maxPacketLossThreshold: 90 },
      )
      const outcome = await inNamespace<ProbeOutcome>(client, { kind: 'icmp', check })
      const icmp = icmpOf(outcome)
      expect(icmp.packetsSent).toBe(50)
      expect(icmp.packetLoss).toBeGreaterThanOrEqual(5)
      expect(icmp.packetLoss).toBeLessThanOrEqual(60)
      expect(icmp.packetsReceived).toBe(icmp.rtts.length)
      expect(icmp.avg).toBeGreaterThanOrEqual(18)
      expect(icmp.min).toBeGreaterThanOrEqual(18)
      expect(outcome.assertions.every((a) => a.passed)).toBe(true)
      expect(outcome.status).toBe('degraded')
      expect(outcome.error).toBeUndefined()
    })

    it('fails when the loss reaches maxPacketLossThreshold', async () => {
      const check = icmpCheck(
        { pingCount: 20 },
        { degradedPacketLossThreshold: 1, maxPacketLossThreshold: 2 },
      )
      const outcome = await inNamespace<ProbeOutcome>(client, { kind: 'icmp', check })
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('PACKET_LOSS')
      expect(outcome.error?.message).toMatch(/reached maxPacketLossThreshold 2%/)
    })

    it('fails with NO_REPLY and the reason ping saw for a host that is not there', async () => {
      const outcome = await inNamespace<ProbeOutcome>(client, {
        kind: 'icmp',
        check: icmpCheck({ hostname: '198.18.0.5' }),
      })
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('NO_REPLY')
      expect(outcome.error?.message).toContain('no reply to 3 echo requests to 198.18.0.5')
      expect(icmpOf(outcome).packetLoss).toBe(100)
    })

    it('fails with DNS_FAILURE for a name that does not resolve', async () => {
      const outcome = await inNamespace<ProbeOutcome>(client, {
        kind: 'icmp',
        check: icmpCheck({ hostname: 'nosuch.invalid' }),
      })
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('DNS_FAILURE')
      expect(outcome.error?.message).toContain('nosuch.invalid')
      expect(icmpOf(outcome).address).toBeNull()
    })

    it('falls back to IPv4 where IPv6 is disabled, and says so', async () => {
      const decision = await inNamespace<FamilyDecision>(v6off, {
        kind: 'family',
        requested: 'IPv6',
        host: 'localhost',
      })
      expect(decision.family).toBe('IPv4')
      expect(decision.fallbackNote).toMatch(
        /IPv6 is not available on this agent's host .*fell back to IPv4 for localhost/,
      )

      const outcome = await inNamespace<ProbeOutcome>(v6off, {
        kind: 'icmp',
        check: icmpCheck({ hostname: 'localhost', ipFamily: 'IPv6' }),
      })
      expect(outcome.status).toBe('passed')
      expect(outcome.details?.icmp).toMatchObject({
        requestedFamily: 'IPv6',
        family: 'IPv4',
        address: '127.0.0.1',
      })
      expect(outcome.details?.notes).toEqual([decision.fallbackNote])
    })

    it('keeps IPv6 where IPv6 works (same name, same hosts file)', async () => {
      const decision = await inNamespace<FamilyDecision>(v6on, {
        kind: 'family',
        requested: 'IPv6',
        host: 'localhost',
      })
      expect(decision).toEqual({ family: 'IPv6' })
      const outcome = await inNamespace<ProbeOutcome>(v6on, {
        kind: 'icmp',
        check: icmpCheck({ hostname: 'localhost', ipFamily: 'IPv6' }),
      })
      expect(outcome.status).toBe('passed')
      expect(outcome.details?.icmp).toMatchObject({ family: 'IPv6', address: '::1' })
      expect(outcome.details?.notes).toEqual([])
    })

    it('works as an unprivileged user through the ping binary capability', async () => {
      const capability = await inNamespace<IcmpCapability>(strict, { kind: 'capability' }, NOBODY)
      expect(capability).toMatchObject({ available: true, method: 'cap_net_raw' })
      const outcome = await inNamespace<ProbeOutcome>(
        strict,
        { kind: 'icmp', check: icmpCheck({ hostname: '127.0.0.1' }) },
        NOBODY,
      )
      expect(outcome.status).toBe('passed')
    })

    it('says how to fix it when an unprivileged user may not send ICMP', async () => {
      const command = join(caplessDir, 'ping')
      const capability = await inNamespace<IcmpCapability>(strict, { kind: 'capability', command }, NOBODY)
      expect(capability).toMatchObject({ available: false, method: 'none', pingPath: command })
      expect(capability.message).toContain('setcap cap_net_raw+ep')
      expect(capability.message).toContain('net.ipv4.ping_group_range')

      const outcome = await inNamespace<ProbeOutcome>(
        strict,
        { kind: 'icmp', command, check: icmpCheck({ hostname: '127.0.0.1' }) },
        NOBODY,
      )
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('ICMP_NOT_PERMITTED')
      expect(outcome.error?.message).toContain('ping_group_range')
    })

    it('works as an unprivileged user through net.ipv4.ping_group_range', async () => {
      const command = join(caplessDir, 'ping')
      const capability = await inNamespace<IcmpCapability>(open, { kind: 'capability', command }, NOBODY)
      expect(capability).toMatchObject({ available: true, method: 'ping_group_range' })
      const outcome = await inNamespace<ProbeOutcome>(
        open,
        { kind: 'icmp', command, check: icmpCheck({ hostname: '127.0.0.1' }) },
        NOBODY,
      )
      expect(outcome.status).toBe('passed')
    })
  },
)
