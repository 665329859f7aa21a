// Network-failure diagnostics for URL monitors and API checks: after a connection-level failure,
// capture one re-attempt with tcpdump and trace the route, and attach both as artifacts. Bounded in
// time (one budget for both) and in how many run at once (the limiter is per agent, passed in).
// Anything missing (tools, capabilities, time) becomes a note; diagnostics never fail a run.

import type { IpFamily } from '../../model/checks.ts'
import type { ArtifactRef } from '../../model/result.ts'
import { connectTcp, type HostLookup, systemLookup } from '../net/timed-connect.ts'
import { writeArtifact } from './artifacts.ts'
import { captureReattempt } from './capture.ts'
import { createSlotLimiter, type SlotLimiter } from './limiter.ts'
import { traceroute } from './traceroute.ts'

export type DiagnosticTarget =
  | {
      /** The TCP connection failed (refused, reset, unreachable, timed out). */
      kind: 'tcp'
      address: string
      family: 4 | 6
      port: number
    }
  | {
      /** The name did not resolve: look at the path to the resolver and its answer. */
      kind: 'dns'
      hostname: string
      ipFamily: IpFamily
      resolver: { address: string; port: number }
      lookup?: HostLookup
    }

export interface DiagnosticsReport {
  artifacts: ArtifactRef[]
  notes: string[]
  /** What the captured re-attempt saw, with tcpdump's packet count. */
  summary?: string
}

export interface NetworkDiagnostics {
  run(target: DiagnosticTarget, context: { runDir: string; signal: AbortSignal }): Promise<DiagnosticsReport>
}

export interface NetworkDiagnosticsOptions {
  /** Diagnostics running at once across the agent; further requests are skipped with a note. */
  maxConcurrent?: number
  /** Wall-clock budget of one diagnostics run, capture and traceroute together. */
  timeBudgetMs?: number
  tracerouteCommand?: string
  tcpdumpCommand?: string
  maxHops?: number
}

export const DIAGNOSTICS_DEFAULTS = {
  maxConcurrent: 2,
  timeBudgetMs: 10_000,
  tracerouteCommand: 'traceroute',
  tcpdumpCommand: 'tcpdump',
  maxHops: 20,
} as const

/** Share of the budget the capture may use; the traceroute gets the rest. */
const CAPTURE_SHARE = 0.4

export function createNetworkDiagnostics(options: NetworkDiagnosticsOptions = {}): NetworkDiagnostics {
  const settings = { ...DIAGNOSTICS_DEFAULTS, ...options }
  const limiter: SlotLimiter = createSlotLimiter(settings.maxConcurrent)
  return {
    async run(target, context) {
      const release = limiter.tryAcquire()
      if (!release) {
        return { artifacts: [], notes: [`diagnostics skipped: ${limiter.max} already running on this agent`] }
      }
      try {
        return await runBounded(target, context, settings)
      } catch (err) {
        // Writing an artifact can fail (disk full); the run's own result matters more.
        return {
          artifacts: [],
          notes: [`diagnostics failed: ${err instanceof Error ? err.message : String(err)}`],
        }
      } finally {
        release()
      }
    },
  }
}

async function runBounded(
  target: DiagnosticTarget,
  context: { runDir: string; signal: AbortSignal },
  settings: Required<NetworkDiagnosticsOptions>,
): Promise<DiagnosticsReport> {
  const started = performance.now()
  const deadline = AbortSignal.any([context.signal, AbortSignal.timeout(settings.timeBudgetMs)])
  const notes: string[] = []
  const artifacts: ArtifactRef[] = []
  const endpoint = endpointOf(target)

  const capture = await captureReattempt({
    command: settings.tcpdumpCommand,
    filter: `host ${endpoint.address} and port ${endpoint.port}`,
    timeoutMs: settings.timeBudgetMs * CAPTURE_SHARE,
    signal: deadline,
    reattempt: (signal) => reattempt(target, signal),
  })
  notes.push(...capture.notes)
  if (capture.pcap) {
    artifacts.push(await writeArtifact(context.runDir, 'network-capture.pcap', 'pcap', capture.pcap))
  }

  const trace = await traceroute(
    { address: endpoint.address, family: endpoint.family, port: endpoint.port, protocol: endpoint.protocol },
    {
      command: settings.tracerouteCommand,
      timeoutMs: settings.timeBudgetMs - (performance.now() - started),
      signal: deadline,
      maxHops: settings.maxHops,
    },
  )
  notes.push(...trace.notes)
  if (trace.text) {
    artifacts.push(
      await writeArtifact(context.runDir, 'traceroute.txt', 'traceroute', Buffer.from(trace.text)),
    )
  }
  const report: DiagnosticsReport = { artifacts, notes }
  if (capture.summary) report.summary = capture.summary
  return report
}

function endpointOf(target: DiagnosticTarget): {
  address: string
  family: 4 | 6
  port: number
  protocol: 'tcp' | 'udp'
} {
  if (target.kind === 'tcp')
    return { address: target.address, family: target.family, port: target.port, protocol: 'tcp' }
  const family = target.resolver.address.includes(':') ? 6 : 4
  return { address: target.resolver.address, family, port: target.resolver.port, protocol: 'udp' }
}

async function reattempt(target: DiagnosticTarget, signal: AbortSignal): Promise<string> {
  const started = performance.now()
  const took = (): string => `${Math.round(performance.now() - started)} ms`
  if (target.kind === 'tcp') {
    try {
      const { socket } = await connectTcp(target.address, target.port, signal)
      socket.destroy()
      return `re-attempt: TCP connect to ${target.address}:${target.port} succeeded after ${took()}`
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err
      return `re-attempt: TCP connect to ${target.address}:${target.port} failed after ${took()}: ${describe(cause)}`
    }
  }
  const lookup = target.lookup ?? systemLookup
  const family = target.ipFamily === 'IPv6' ? 6 : 4
  // The listener is removed afterwards: left on a long-lived signal it would keep this closure alive.
  let onAbort: () => void = () => {}
  try {
    const found = await Promise.race([
      lookup(target.hostname, family),
      new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason)
        signal.addEventListener('abort', onAbort, { once: true })
      }),
    ])
    return `re-attempt: lookup of ${target.hostname} returned ${found.address} after ${took()}`
  } catch (err) {
    return `re-attempt: lookup of ${target.hostname} failed after ${took()}: ${describe(err)}`
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code
    return code ? `${code} (${err.message})` : err.message
  }
  return String(err)
}
