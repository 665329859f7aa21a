import { createHash } from 'node:crypto'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ArtifactRef } from '../../src/model/result.ts'
import { createSlotLimiter } from '../../src/probes/diagnostics/limiter.ts'
import { createNetworkDiagnostics } from '../../src/probes/diagnostics/network-diagnostics.ts'
import { createUrlProbe } from '../../src/probes/url.ts'
import { loopbackLookup, sampleZone, startDnsServer, type TestDnsServer } from './dns-fixtures.ts'
import { probeContext, startHttpServer, urlMonitor } from './url-fixtures.ts'

/** Capturing and TCP traceroute need root (CI runs as root); without it those tests cannot run. */
const isRoot = process.getuid?.() === 0
const scratch = mkdtempSync(path.join(tmpdir(), 'outpost-diag-test-'))
let closedPort: number
let dnsServer: TestDnsServer

beforeAll(async () => {
  const server = await startHttpServer(() => {})
  closedPort = server.port
  await server.close()
  dnsServer = await startDnsServer({ zone: sampleZone() })
})

afterAll(async () => {
  await dnsServer.close()
  rmSync(scratch, { recursive: true, force: true })
})

function runDir(name: string): string {
  return path.join(scratch, name)
}

/** A wrapper script standing in for a tool: runs the real tool without privileges, or sleeps. */
function script(name: string, body: string): string {
  const file = path.join(scratch, name)
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
  return file
}

function expectArtifactOnDisk(artifact: ArtifactRef | undefined): Buffer {
  expect(artifact).toBeDefined()
  const content = readFileSync(artifact?.location ?? '')
  expect(content.length).toBe(artifact?.size)
  expect(createHash('sha256').update(content).digest('hex')).toBe(artifact?.sha256)
  return content
}

describe('network diagnostics on a URL monitor failure', () => {
  it.skipIf(!isRoot)(
    'attaches a header-only capture of a re-attempt and a TCP traceroute to a refused connection',
    async () => {
      const probe = createUrlProbe({ diagnostics: createNetworkDiagnostics() })
      const dir = runDir('refused')
      const outcome = await probe(urlMonitor(`http://127.0.0.1:${closedPort}/`), probeContext(dir))
      expect(outcome.status).toBe('failed')
      expect(outcome.error?.code).toBe('CONNECTION_REFUSED')

      const pcap = outcome.artifacts?.find((a) => a.kind === 'pcap')
      const content = expectArtifactOnDisk(pcap)
      expect(pcap?.location.startsWith(dir)).toBe(true)
      // pcap magic (microsecond, either byte order) and snaplen 128 in the global header.
      expect(['a1b2c3d4', 'd4c3b2a1']).toContain(content.subarray(0, 4).toString('hex'))
      const snaplen = content.readUInt32LE(16) === 128 ? 128 : content.readUInt32BE(16)
      expect(snaplen).toBe(128)
      // At least our SYN and the RST that refused it.
      expect(content.length).toBeGreaterThan(24 + 2 * 16)

      const trace = outcome.artifacts?.find((a) => a.kind === 'traceroute')
      const text = expectArtifactOnDisk(trace).toString('utf8')
      expect(text).toContain(`-T -p ${closedPort}`)
      expect(text).toContain('127.0.0.1')

      const diagnostics = outcome.details?.diagnostics as { notes: string[]; summary: string }
      expect(diagnostics.summary).toMatch(
        /re-attempt: TCP connect to 127\.0\.0\.1:\d+ failed after \d+ ms: ECONNREFUSED/,
      )
      expect(diagnostics.summary).toMatch(/\d+ packets? captured/)
      expect(diagnostics.notes).toEqual([])
    },
  )

  it.skipIf(!isRoot)('looks at the resolver when the name does not resolve', async () => {
    const probe = createUrlProbe({
      diagnostics: createNetworkDiagnostics(),
      lookup: loopbackLookup(dnsServer.port),
      resolver: { address: '127.0.0.1', port: dnsServer.port },
    })
    const before = dnsServer.queries.length
    const outcome = await probe(
      urlMonitor(`http://gone.example.test:${closedPort}/`),
      probeContext(runDir('dns')),
    )
    expect(outcome.error?.code).toBe('DNS_NXDOMAIN')
    expect(outcome.artifacts?.map((a) => a.kind).sort()).toEqual(['pcap', 'traceroute'])
    const diagnostics = outcome.details?.diagnostics as { summary: string }
    expect(diagnostics.summary).toContain('re-attempt: lookup of gone.example.test failed')
    // The probe's lookup and the captured re-attempt both reached our server.
    expect(
      dnsServer.queries.slice(before).filter((q) => q.name === 'gone.example.test').length,
    ).toBeGreaterThanOrEqual(2)
    const trace = readFileSync(
      outcome.artifacts?.find((a) => a.kind === 'traceroute')?.location ?? '',
      'utf8',
    )
    expect(trace).toContain(`-U -p ${dnsServer.port}`)
  })

  it('runs nothing on a failure that is not about the network', async () => {
    const server = await startHttpServer((_req, res) => {
      res.statusCode = 500
      res.end()
    })
    try {
      const probe = createUrlProbe({ diagnostics: createNetworkDiagnostics() })
      const outcome = await probe(urlMonitor(`${server.origin}/`), probeContext(runDir('http-500')))
      expect(outcome.error?.code).toBe('ASSERTION_FAILED')
      expect(outcome.artifacts).toBeUndefined()
      expect(outcome.details?.diagnostics).toBeUndefined()
    } finally {
      await server.close()
    }
  })

  it('missing tools are notes, never a failure of their own', async () => {
    const probe = createUrlProbe({
      diagnostics: createNetworkDiagnostics({
        tracerouteCommand: path.join(scratch, 'no-such-traceroute'),
        tcpdumpCommand: path.join(scratch, 'no-such-tcpdump'),
      }),
    })
    const outcome = await probe(
      urlMonitor(`http://127.0.0.1:${closedPort}/`),
      probeContext(runDir('missing')),
    )
    expect(outcome.error?.code).toBe('CONNECTION_REFUSED')
    expect(outcome.artifacts).toEqual([])
    const notes = notesOf(outcome.details)
    expect(notes).toEqual([
      expect.stringMatching(
        /^tcpdump: '.*no-such-tcpdump' is not installed \(Debian: apt-get install tcpdump\)$/,
      ),
      expect.stringMatching(/^traceroute: '.*no-such-traceroute' is not installed/),
    ])
  })

  it.skipIf(!isRoot)('without privileges: capture is a note and traceroute falls back to UDP', async () => {
    const unprivileged = (tool: string) =>
      script(`unprivileged-${tool}`, `exec setpriv --reuid=65534 --regid=65534 --clear-groups ${tool} "$@"`)
    const probe = createUrlProbe({
      diagnostics: createNetworkDiagnostics({
        tracerouteCommand: unprivileged('traceroute'),
        tcpdumpCommand: unprivileged('tcpdump'),
      }),
    })
    const outcome = await probe(
      urlMonitor(`http://127.0.0.1:${closedPort}/`),
      probeContext(runDir('unprivileged')),
    )
    expect(outcome.error?.code).toBe('CONNECTION_REFUSED')
    const notes = notesOf(outcome.details)
    expect(notes).toContain('tcpdump: capture not permitted (needs root or CAP_NET_RAW on tcpdump)')
    expect(notes).toContain('traceroute: TCP method not permitted (needs root or CAP_NET_RAW)')
    expect(outcome.artifacts?.map((a) => a.kind)).toEqual(['traceroute'])
    const trace = readFileSync(outcome.artifacts?.[0]?.location ?? '', 'utf8')
    expect(trace).not.toContain('-T')
    expect(trace).toContain('127.0.0.1')
  })

  it('stops tools at the time budget', async () => {
    const hang = script('hanging-tool', 'exec sleep 60')
    const diagnostics = createNetworkDiagnostics({
      timeBudgetMs: 1500,
      tracerouteCommand: hang,
      tcpdumpCommand: hang,
    })
    const report = await diagnostics.run(
      { kind: 'tcp', address: '127.0.0.1', family: 4, port: closedPort },
      { runDir: runDir('budget'), signal: new AbortController().signal },
    )
    expect(report.notes).toEqual([
      'tcpdump: did not start capturing within the diagnostics time limit',
      'traceroute: stopped at the diagnostics time limit; the transcript is partial',
    ])
  })

  it('runs at most maxConcurrent at once and skips the rest with a note', async () => {
    const slow = script('slow-tool', 'sleep 1')
    const diagnostics = createNetworkDiagnostics({
      maxConcurrent: 1,
      tracerouteCommand: slow,
      tcpdumpCommand: slow,
    })
    const target = { kind: 'tcp' as const, address: '127.0.0.1', family: 4 as const, port: closedPort }
    const context = { runDir: runDir('limit'), signal: new AbortController().signal }
    const [first, second] = await Promise.all([
      diagnostics.run(target, context),
      diagnostics.run(target, context),
    ])
    expect(first?.notes).not.toContain('diagnostics skipped: 1 already running on this agent')
    expect(second).toEqual({ artifacts: [], notes: ['diagnostics skipped: 1 already running on this agent'] })
    // The slot is free again afterwards.
    const third = await diagnostics.run(target, context)
    expect(third.notes).not.toContain('diagnostics skipped: 1 already running on this agent')
  })

  it('the limiter refuses a bad size and releases once', () => {
    expect(() => createSlotLimiter(0)).toThrow(
      'diagnostics concurrency 0 is not allowed (an integer of at least 1)',
    )
    const limiter = createSlotLimiter(2)
    const release = limiter.tryAcquire()
    limiter.tryAcquire()
    expect(limiter.tryAcquire()).toBeUndefined()
    release?.()
    release?.()
    expect(limiter.active).toBe(1)
  })
})

function notesOf(details: Record<string, unknown> | undefined): string[] {
  const diagnostics = details?.diagnostics as { notes?: string[] } | undefined
  return diagnostics?.notes ?? []
}
