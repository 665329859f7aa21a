// IPv6 fallback of the URL and TCP probes on a host without IPv6: a network namespace with IPv6
// disabled, a name that has both an IPv4 and an IPv6 address (its own /etc/hosts), a server on the
// namespace's IPv4 loopback. Asked for IPv6, the probes use IPv4 and say so.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProbeOutcome } from '../../src/model/probe.ts'
import { createNetnsLab, type NetnsLab, netnsSupport, waitForLine } from '../helpers/netns.ts'
import { tcpMonitor } from './tcp-fixtures.ts'
import { urlMonitor } from './url-fixtures.ts'

const support = await netnsSupport()
const runner = join(import.meta.dirname, 'url-netns-runner.ts')
const SERVER = `require('node:http').createServer((q, r) => r.end('v4 only')).listen(8080, '127.0.0.1', () => console.log('ready'))`

describe.skipIf(!support.ok)('URL and TCP probes fall back to IPv4 when IPv6 is off', () => {
  let lab: NetnsLab
  let ns: string

  beforeAll(async () => {
    lab = createNetnsLab('urlv6')
    ns = await lab.addNamespace('v6off')
    for (const key of ['all', 'default', 'lo']) await lab.sysctl(ns, `net.ipv6.conf.${key}.disable_ipv6`, '1')
    await lab.etcFile(ns, 'hosts', '127.0.0.1 dual.test\n::1 dual.test\n')
    await waitForLine(lab.start(ns, process.execPath, ['-e', SERVER]), 'ready')
  })

  afterAll(async () => {
    await lab?.cleanup()
  })

  async function runInNamespace(request: unknown): Promise<ProbeOutcome> {
    const result = await lab.exec(ns, process.execPath, [runner, JSON.stringify(request)])
    expect(result.stderr).toBe('')
    return JSON.parse(result.stdout) as ProbeOutcome
  }

  it('URL probe', async () => {
    const outcome = await runInNamespace({
      kind: 'url',
      check: urlMonitor('http://dual.test:8080/', { ipFamily: 'IPv6' }),
    })
    expect(outcome.status).toBe('passed')
    expect(outcome.details).toMatchObject({ remoteAddress: '127.0.0.1', ipFamily: 'IPv4' })
    expect(outcome.details?.notes).toEqual([
      expect.stringMatching(
        /^IPv6 is not available on this agent's host \(.+\); fell back to IPv4 for dual\.test$/,
      ),
    ])
  })

  it('TCP probe', async () => {
    const outcome = await runInNamespace({
      kind: 'tcp',
      check: tcpMonitor({ hostname: 'dual.test', port: 8080, ipFamily: 'IPv6' }),
    })
    expect(outcome.status).toBe('passed')
    expect(outcome.details).toMatchObject({ remoteAddress: '127.0.0.1', ipFamily: 'IPv4' })
    expect(outcome.details?.notes).toEqual([expect.stringContaining('fell back to IPv4 for dual.test')])
  })
})
