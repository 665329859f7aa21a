import { type ChildProcess, spawn } from 'node:child_process'
import dgram from 'node:dgram'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Assertion, DnsCheck, DnsRecordType } from '../../src/model/checks.ts'
import { svcbData } from '../../src/probes/dns/present.ts'
import { parseServerEntry } from '../../src/probes/dns/system-resolver.ts'
import { createDnsProbe } from '../../src/probes/dns.ts'
import { NO_RETRIES } from '../helpers/definitions.ts'
import { freeDnsPort, sampleZone, startDnsServer, type TestDnsServer } from './dns-fixtures.ts'
import { probeContext } from './url-fixtures.ts'

const runDir = mkdtempSync(path.join(tmpdir(), 'outpost-dns-test-'))
const probe = createDnsProbe()
const ctx = () => probeContext(runDir)

function dnsMonitor(
  request: Partial<DnsCheck['request']>,
  limits: Partial<Pick<DnsCheck, 'degradedResponseTime' | 'maxResponseTime'>> = {},
): DnsCheck {
  return {
    type: 'DNS',
    logicalId: 'dns-test',
    name: 'DNS test',
    activated: true,
    muted: false,
    tags: [],
    frequencySeconds: 60,
    locations: [],
    privateLocations: [],
    retryStrategy: NO_RETRIES,
    environmentVariables: [],
    request: {
      query: 'example.test',
      recordType: 'A',
      nameServer: '127.0.0.1',
      port: 53,
      protocol: 'UDP',
      assertions: [],
      ...request,
    },
    degradedResponseTime: 500,
    maxResponseTime: 2000,
    ...limits,
  }
}

const assertion = (source: string, comparison: string, target: string, property = ''): Assertion => ({
  source,
  property,
  comparison,
  target,
  regex: null,
})

let server: TestDnsServer

beforeAll(async () => {
  server = await startDnsServer({
    zone: sampleZone(),
    truncateOverUdp: new Set(['big.example.test']),
    silent: new Set(['silent.example.test']),
  })
})

afterAll(async () => {
  await server.close()
  rmSync(runDir, { recursive: true, force: true })
})

describe('DNS probe against our own dns-packet server', () => {
  it('answers an A query over UDP with rcode, text lines and JSON', async () => {
    const outcome = await probe(dnsMonitor({ port: server.port }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.assertions).toEqual([
      { source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR', actual: 'NOERROR', passed: true },
    ])
    expect(outcome.responseTimeMs).toBeGreaterThan(0)
    expect(outcome.details).toMatchObject({
      nameServer: '127.0.0.1',
      port: server.port,
      protocol: 'UDP',
      truncatedRetry: false,
      rcode: 'NOERROR',
      answers: ['example.test. 60 IN A 127.0.0.1'],
      answerJson: {
        Status: 0,
        TC: false,
        Question: [{ name: 'example.test.', type: 1 }],
        Answer: [{ name: 'example.test.', type: 1, TTL: 60, data: '127.0.0.1' }],
      },
    })
  })

  it.each([
    ['AAAA', 'example.test. 60 IN AAAA ::1'],
    ['CNAME', 'www.example.test. 60 IN CNAME example.test.'],
    ['MX', 'example.test. 60 IN MX 10 mail.example.test.'],
    ['NS', 'example.test. 60 IN NS ns1.example.test.'],
    ['TXT', 'example.test. 60 IN TXT "v=spf1 -all"'],
    [
      'SOA',
      'example.test. 60 IN SOA ns1.example.test. hostmaster.example.test. 2026112201 3600 600 86400 60',
    ],
    ['HTTPS', 'example.test. 60 IN HTTPS 1 . alpn="h2,h3" port=8443 ipv4hint=127.0.0.1'],
  ] as [DnsRecordType, string][])('presents %s records like dig', async (recordType, line) => {
    const query = recordType === 'CNAME' ? 'www.example.test' : 'example.test'
    const outcome = await probe(dnsMonitor({ port: server.port, query, recordType }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.details?.answers).toEqual([line])
    const last = server.queries.at(-1)
    expect(last?.type).toBe(recordType === 'HTTPS' ? 'UNKNOWN_65' : recordType)
  })

  it('queries over TCP with the 2-byte length prefix', async () => {
    const before = server.queries.length
    const outcome = await probe(dnsMonitor({ port: server.port, protocol: 'TCP' }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.details).toMatchObject({ protocol: 'TCP', answers: ['example.test. 60 IN A 127.0.0.1'] })
    expect(server.queries.slice(before).map((q) => q.transport)).toEqual(['tcp'])
  })

  it('retries over TCP when the UDP answer is truncated', async () => {
    const before = server.queries.length
    const outcome = await probe(
      dnsMonitor({ port: server.port, query: 'big.example.test', recordType: 'TXT' }),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
    expect(outcome.details).toMatchObject({ protocol: 'TCP', truncatedRetry: true })
    expect(outcome.details?.answers).toHaveLength(20)
    expect(server.queries.slice(before).map((q) => q.transport)).toEqual(['udp', 'tcp'])
  })

  it('fails NXDOMAIN by default, and passes it when asserted', async () => {
    const missing = await probe(dnsMonitor({ port: server.port, query: 'nope.example.test' }), ctx())
    expect(missing.status).toBe('failed')
    expect(missing.error).toEqual({
      code: 'DNS_NXDOMAIN',
      message: `127.0.0.1:${server.port} answered NXDOMAIN for nope.example.test A`,
    })
    expect(missing.details?.rcode).toBe('NXDOMAIN')

    const expected = await probe(
      dnsMonitor({
        port: server.port,
        query: 'nope.example.test',
        assertions: [assertion('RESPONSE_CODE', 'EQUALS', 'NXDOMAIN')],
      }),
      ctx(),
    )
    expect(expected.status).toBe('passed')
  })

  it('evaluates text (regex) and JSON (path) answer assertions, old and new source names', async () => {
    const assertions: Assertion[] = [
      { source: 'TEXT_ANSWER', property: '', comparison: 'CONTAINS', target: 'IN A 127.0.0.1', regex: null },
      {
        source: 'TEXT_ANSWER',
        property: '',
        comparison: 'EQUALS',
        target: '60',
        regex: 'example\\.test\\. (\\d+)',
      },
      assertion('JSON_ANSWER', 'EQUALS', '127.0.0.1', '$.Answer[0].data'),
      assertion('ANSWER_JSON', 'EQUALS', '0', '$.Status'),
      assertion('ANSWER', 'NOT_CONTAINS', 'AAAA'),
      assertion('RESPONSE_TIME', 'LESS_THAN', '60000'),
      assertion('JSON_ANSWER', 'EQUALS', '203.0.113.9', '$.Answer[0].data'),
    ]
    const outcome = await probe(dnsMonitor({ port: server.port, assertions }), ctx())
    expect(outcome.assertions.map((a) => a.passed)).toEqual([true, true, true, true, true, true, false])
    expect(outcome.assertions[1]?.actual).toBe('60')
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('ASSERTION_FAILED')
    expect(outcome.error?.message).toContain(`JSON_ANSWER '$.Answer[0].data' EQUALS "203.0.113.9" failed`)
  })

  it('times out on a server that never answers', async () => {
    const outcome = await probe(
      dnsMonitor({ port: server.port, query: 'silent.example.test' }, { maxResponseTime: 300 }),
      ctx(),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('TIMEOUT')
    expect(outcome.error?.message).toContain('silent.example.test A @127.0.0.1')
    // The server is there, just silent: the refusal check must not call that a refusal.
    expect(outcome.error?.code).not.toBe('CONNECTION_REFUSED')
  })

  it('reports a refused UDP query (nothing listening) and a refused TCP connect', async () => {
    const port = await freeUdpPort()
    const udp = await probe(dnsMonitor({ port }, { maxResponseTime: 300 }), ctx())
    expect(udp.error?.code).toBe('CONNECTION_REFUSED')
    expect(udp.error?.message).toMatch(
      /^no answer from 127\.0\.0\.1:\d+ within \d+ ms: nothing listening there/,
    )
    const tcp = await probe(dnsMonitor({ port, protocol: 'TCP' }), ctx())
    expect(tcp.error?.code).toBe('CONNECTION_REFUSED')
  })

  it('is degraded when the answer is slow', async () => {
    const slow = await startDnsServer({ zone: sampleZone(), delayMs: 150 })
    try {
      const outcome = await probe(
        dnsMonitor({ port: slow.port }, { degradedResponseTime: 50, maxResponseTime: 5000 }),
        ctx(),
      )
      expect(outcome.status).toBe('degraded')
      expect(outcome.responseTimeMs).toBeGreaterThanOrEqual(150)
    } finally {
      await slow.close()
    }
  })

  it("asks the OS's first resolver when no nameServer is given", async () => {
    const system = createDnsProbe({ getServers: () => [`127.0.0.1:${server.port}`, '127.0.0.9'] })
    const outcome = await system(dnsMonitor({ nameServer: undefined }), ctx())
    expect(outcome.status).toBe('passed')
    expect(outcome.details).toMatchObject({ nameServer: '127.0.0.1', port: server.port })
    const none = await createDnsProbe({ getServers: () => [] })(dnsMonitor({ nameServer: undefined }), ctx())
    expect(none.error?.message).toContain('the OS has no resolver configured')
  })

  it('names the bad field of an invalid request', async () => {
    const outcome = await probe(dnsMonitor({ recordType: 'SRV' as DnsRecordType }), ctx())
    expect(outcome.error).toEqual({
      code: 'INVALID_REQUEST',
      message: "request.recordType 'SRV' is not supported (allowed: A, AAAA, CNAME, MX, NS, TXT, SOA, HTTPS)",
    })
  })
})

describe('DNS probe against dnsmasq', () => {
  let dnsmasq: ChildProcess
  let port: number

  beforeAll(async () => {
    port = await freeDnsPort()
    dnsmasq = spawn(
      'dnsmasq',
      [
        '--no-daemon',
        '--conf-file=/dev/null',
        `--port=${port}`,
        '--listen-address=127.0.0.1',
        '--bind-interfaces',
        '--no-resolv',
        '--no-hosts',
        '--local=/test/',
        '--address=/example.test/127.0.0.1',
        '--txt-record=example.test,outpost dnsmasq',
        '--mx-host=example.test,mail.example.test,5',
        '--pid-file=',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    dnsmasq.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exited = new Promise<never>((_, reject) =>
      dnsmasq.once('exit', (code) => reject(new Error(`dnsmasq exited (${code}): ${stderr}`))),
    )
    await Promise.race([waitForDns(port), exited])
  })

  afterAll(() => {
    dnsmasq.kill('SIGTERM')
  })

  it('resolves A over UDP and TCP', async () => {
    for (const protocol of ['UDP', 'TCP'] as const) {
      const outcome = await probe(dnsMonitor({ port, protocol }), ctx())
      expect(outcome.status).toBe('passed')
      expect(outcome.details?.answers).toEqual([
        expect.stringMatching(/^example\.test\. \d+ IN A 127\.0\.0\.1$/),
      ])
      expect(outcome.details?.protocol).toBe(protocol)
    }
  })

  it('answers TXT and MX records', async () => {
    const txt = await probe(dnsMonitor({ port, recordType: 'TXT' }), ctx())
    expect(txt.details?.answers).toEqual([expect.stringMatching(/IN TXT "outpost dnsmasq"$/)])
    const mx = await probe(
      dnsMonitor({
        port,
        recordType: 'MX',
        assertions: [assertion('JSON_ANSWER', 'EQUALS', '15', '$.Answer[0].type')],
      }),
      ctx(),
    )
    expect(mx.status).toBe('passed')
    expect(mx.details?.answers).toEqual([expect.stringMatching(/IN MX 5 mail\.example\.test\.$/)])
  })

  it('reports NXDOMAIN for a name it does not know', async () => {
    const outcome = await probe(dnsMonitor({ port, query: 'unknown.test' }), ctx())
    expect(outcome.error?.code).toBe('DNS_NXDOMAIN')
  })
})

describe('DNS helpers', () => {
  it('parses resolver entries the way dns.getServers() writes them', () => {
    expect(parseServerEntry('192.0.2.1')).toEqual({ address: '192.0.2.1', port: 53 })
    expect(parseServerEntry('192.0.2.1:5353')).toEqual({ address: '192.0.2.1', port: 5353 })
    expect(parseServerEntry('::1')).toEqual({ address: '::1', port: 53 })
    expect(parseServerEntry('[::1]:5353')).toEqual({ address: '::1', port: 5353 })
  })

  it('shows malformed HTTPS rdata in the generic form', () => {
    expect(svcbData(Buffer.from([0, 1, 9]))).toBe('\\# 3 000109')
  })
})

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4')
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const { port } = socket.address()
  await new Promise<void>((resolve) => socket.close(() => resolve()))
  return port
}

/** dnsmasq is ready once it answers; bounded number of attempts. TCP: a refusal comes back at once. */
async function waitForDns(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const outcome = await probe(dnsMonitor({ port, protocol: 'TCP' }, { maxResponseTime: 500 }), ctx())
    if (outcome.status === 'passed') return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`dnsmasq did not answer on 127.0.0.1:${port}`)
}
