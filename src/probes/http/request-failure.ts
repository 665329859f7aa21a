// A request that did not get a response, for URL monitors and API checks alike: classified (codes,
// phase timings) and explained by network diagnostics (traceroute, header-only capture).

import dns from 'node:dns'
import type { IpFamily } from '../../model/checks.ts'
import type { ProbeContext, ProbeOutcome } from '../../model/probe.ts'
import type { DiagnosticTarget, NetworkDiagnostics } from '../diagnostics/network-diagnostics.ts'
import { firstSystemResolver, type NameServer } from '../dns/system-resolver.ts'
import { chargeFailedPhase, type HttpProgress } from '../http/request.ts'
import { type HostLookup, stripBrackets } from '../net/timed-connect.ts'
import {
  type ClassifiedError,
  classifyNetworkError,
  type Phase,
  PhaseError,
  timeoutError,
} from '../network-errors.ts'
import type { RunDeadline } from '../run-deadline.ts'
import { roundMs, roundTimings } from '../thresholds.ts'

export interface FailureContext {
  maxResponseTime: number
  ipFamily: IpFamily
  diagnostics?: NetworkDiagnostics
  lookup?: HostLookup
  resolver?: NameServer
}

export async function requestFailure(
  err: unknown,
  failure: FailureContext,
  ctx: ProbeContext,
  deadline: RunDeadline,
  progress: HttpProgress,
): Promise<ProbeOutcome> {
  chargeFailedPhase(progress, performance.now())
  const phase: Phase = err instanceof PhaseError ? err.phase : progress.phase
  const target = `${progress.host}:${progress.port}`
  const error: ClassifiedError = deadline.signal.aborted
    ? timeoutError(phase, target, deadline.elapsed(), deadline.timedOut ? failure.maxResponseTime : undefined)
    : classifyNetworkError(err, phase, target)
  if (deadline.signal.aborted && !deadline.timedOut) {
    error.message = `${error.message}: the job was stopped (${String(ctx.signal.reason ?? 'aborted')})`
  }
  const details: Record<string, unknown> = { url: progress.url, phase }
  if (progress.remoteAddress) details.remoteAddress = progress.remoteAddress
  if (progress.redirects.length > 0) details.redirects = progress.redirects
  if (progress.notes.length > 0) details.notes = progress.notes
  const outcome: ProbeOutcome = {
    status: 'failed',
    responseTimeMs: roundMs(deadline.elapsed()),
    error: { code: error.code, message: error.message },
    assertions: [],
    timings: roundTimings(progress.timings),
    details,
  }
  if (error.connectionLevel && failure.diagnostics && !ctx.signal.aborted) {
    const diagnosticTarget = targetFor(failure, progress, phase)
    if (diagnosticTarget) {
      const report = await failure.diagnostics.run(diagnosticTarget, {
        runDir: ctx.runDir,
        signal: ctx.signal,
      })
      outcome.artifacts = report.artifacts
      details.diagnostics = { notes: report.notes, summary: report.summary }
    } else {
      details.diagnostics = {
        notes: ['diagnostics skipped: no resolver address known for the failed lookup'],
      }
    }
  }
  return outcome
}

function targetFor(
  failure: FailureContext,
  progress: HttpProgress,
  phase: Phase,
): DiagnosticTarget | undefined {
  if (phase !== 'dns' && progress.remoteAddress) {
    const address = stripBrackets(progress.remoteAddress)
    return { kind: 'tcp', address, family: address.includes(':') ? 6 : 4, port: progress.port }
  }
  const resolver = failure.resolver ?? firstSystemResolver(() => dns.getServers())
  if (!resolver) return undefined
  return {
    kind: 'dns',
    hostname: progress.host,
    ipFamily: failure.ipFamily,
    resolver,
    lookup: failure.lookup,
  }
}
