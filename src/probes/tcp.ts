// TCP monitor: connect to host:port over a fresh connection; when `data` is given, send it and read
// the reply, bounded in bytes (64 KiB) and in time. A reply is over when the server closes its side,
// when the cap is reached, or after a quiet gap with no new bytes (not charged to the response
// time, which ends at the reply's last byte).

import type { Assertion, TcpCheck } from '../model/checks.ts'
import type { Probe, ProbeContext, ProbeOutcome } from '../model/probe.ts'
import type { Timings } from '../model/result.ts'
import { type AssertionSubject, evaluateAssertions, unsupportedSource } from './assertions.ts'
import { resolveFamily } from './ip-family.ts'
import {
  connectTcp,
  familyOptionsFor,
  type HostLookup,
  matchingLiteral,
  resolveHost,
  stripBrackets,
} from './net/timed-connect.ts'
import {
  type ClassifiedError,
  classifyNetworkError,
  type Phase,
  PhaseError,
  timeoutError,
} from './network-errors.ts'
import { createDeadlineClock, type DeadlineClock, type RunDeadline, type StopSignal } from './run-deadline.ts'
import { decideStatus, roundMs, roundTimings } from './thresholds.ts'

export const TCP_ASSERTION_SOURCES = ['RESPONSE_DATA', 'RESPONSE_TIME'] as const

export const TCP_LIMITS = {
  maxReplyBytes: 64 * 1024,
  /** A reply with no new bytes for this long is taken as complete. */
  quietGapMs: 100,
  excerptBytes: 2 * 1024,
} as const

export interface TcpProbeDependencies {
  lookup?: HostLookup
  quietGapMs?: number
}

export function createTcpProbe(dependencies: TcpProbeDependencies = {}): Probe<TcpCheck> {
  const clock = createDeadlineClock()
  return (check, ctx) => runTcpCheck(check, ctx, dependencies, clock)
}

interface Reply {
  data: Buffer
  truncated: boolean
  closedByPeer: boolean
  /** From the data being written to the reply's first byte, then to its last. */
  firstByteMs: number
  downloadMs: number
}

async function runTcpCheck(
  check: TcpCheck,
  ctx: ProbeContext,
  deps: TcpProbeDependencies,
  clock: DeadlineClock,
): Promise<ProbeOutcome> {
  const request = check.request
  const invalid = validate(check)
  if (invalid)
    return { status: 'failed', error: { code: 'INVALID_REQUEST', message: invalid }, assertions: [] }
  const startedAt = performance.now()
  const deadline = clock.start(ctx.signal, check.maxResponseTime)
  const timings: Timings = { dns: 0, connect: 0, tls: 0, firstByte: 0, download: 0 }
  const target = `${request.hostname}:${request.port}`
  let phase: Phase = 'dns'
  let phaseStarted = performance.now()
  let remoteAddress: string | undefined
  let family: 4 | 6 | undefined
  let reply: Reply | undefined
  let responseEnd: number
  const notes: string[] = []
  try {
    const host = stripBrackets(request.hostname)
    let resolved = matchingLiteral(host, request.ipFamily)
    if (!resolved) {
      // An IPv6 check on a host without IPv6 falls back to IPv4 and says so (ip-family.ts).
      const decision = await resolveFamily(request.ipFamily, host, familyOptionsFor(deps.lookup))
      if (decision.fallbackNote) notes.push(decision.fallbackNote)
      phaseStarted = performance.now()
      resolved = await resolveHost(host, decision.family, deadline.signal, deps.lookup)
    }
    timings.dns = resolved.dnsMs
    remoteAddress = resolved.address
    family = resolved.family
    phase = 'connect'
    phaseStarted = performance.now()
    const { socket, connectMs } = await connectTcp(
      resolved.address,
      request.port,
      deadline.signal,
      Boolean(request.data),
    )
    timings.connect = connectMs
    if (request.data) {
      phase = 'response'
      phaseStarted = performance.now()
      reply = await sendAndRead(
        socket,
        request.data,
        deadline.signal,
        deps.quietGapMs ?? TCP_LIMITS.quietGapMs,
      )
      timings.firstByte = reply.firstByteMs
      timings.download = reply.downloadMs
      responseEnd = phaseStarted + reply.firstByteMs + reply.downloadMs
    } else {
      socket.destroy()
      responseEnd = performance.now()
    }
  } catch (err) {
    const spent = performance.now() - phaseStarted
    if (phase === 'dns') timings.dns = spent
    else if (phase === 'connect') timings.connect = spent
    else timings.firstByte = spent
    return failed({
      err,
      phase,
      target,
      deadline,
      ctx,
      timings,
      remoteAddress,
      notes,
      limitMs: check.maxResponseTime,
    })
  } finally {
    deadline.dispose()
  }
  const responseTimeMs = roundMs(responseEnd - startedAt)
  // Both are set once the connect succeeded, which the try block above guarantees here.
  return judge(check, responseTimeMs, timings, reply, remoteAddress!, family!, notes)
}

function judge(
  check: TcpCheck,
  responseTimeMs: number,
  timings: Timings,
  reply: Reply | undefined,
  remoteAddress: string,
  family: 4 | 6,
  notes: string[],
): ProbeOutcome {
  let text: string | undefined
  const replyText = (): string => {
    text ??= reply ? reply.data.toString('utf8') : ''
    return text
  }
  const evaluated = evaluateAssertions(check.request.assertions, (a) =>
    resolveTcpSource(a, responseTimeMs, replyText, reply !== undefined),
  )
  const decision = decideStatus({
    responseTimeMs,
    degradedResponseTime: check.degradedResponseTime,
    maxResponseTime: check.maxResponseTime,
    assertionFailures: evaluated.failures,
  })
  const details: Record<string, unknown> = {
    hostname: check.request.hostname,
    port: check.request.port,
    remoteAddress,
    ipFamily: family === 6 ? 'IPv6' : 'IPv4',
    bytesSent: check.request.data ? Buffer.byteLength(check.request.data) : 0,
  }
  if (notes.length > 0) details.notes = notes
  if (reply) {
    details.bytesReceived = reply.data.length
    details.replyTruncated = reply.truncated
    details.closedByPeer = reply.closedByPeer
    if (decision.status === 'failed')
      details.replyExcerpt = reply.data.subarray(0, TCP_LIMITS.excerptBytes).toString('utf8')
  }
  const outcome: ProbeOutcome = {
    status: decision.status,
    responseTimeMs,
    assertions: evaluated.results,
    timings: roundTimings(timings),
    details,
  }
  if (decision.error) outcome.error = decision.error
  return outcome
}

export function resolveTcpSource(
  assertion: Assertion,
  responseTimeMs: number,
  replyText: () => string,
  dataSent: boolean,
): AssertionSubject {
  switch (assertion.source) {
    case 'RESPONSE_TIME':
      return { value: responseTimeMs }
    case 'RESPONSE_DATA':
      // Without data to send there is no reply to look at: null, so IS_NULL can say so.
      return { value: dataSent ? replyText() : null, propertyIsRegex: true }
    default:
      return unsupportedSource(assertion, TCP_ASSERTION_SOURCES)
  }
}

function sendAndRead(
  socket: import('node:net').Socket,
  data: string,
  signal: StopSignal,
  quietGapMs: number,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    let sentAt = 0
    let firstAt = 0
    let lastAt = 0
    let quietTimer: NodeJS.Timeout | undefined
    let done = false
    const finish = (err: Error | undefined, truncated = false, closedByPeer = false): void => {
      if (done) return
      done = true
      if (quietTimer) clearTimeout(quietTimer)
      signal.removeEventListener('abort', onAbort)
      socket.destroy()
      if (err) {
        reject(err)
        return
      }
      resolve({
        data: Buffer.concat(chunks, received),
        truncated,
        closedByPeer,
        firstByteMs: firstAt ? firstAt - sentAt : 0,
        downloadMs: firstAt ? lastAt - firstAt : 0,
      })
    }
    const onAbort = (): void => {
      // Bytes already here are a reply cut short by the deadline, not a silent server.
      if (received > 0) finish(undefined)
      else finish(new PhaseError('response', signal.reason))
    }
    if (signal.aborted) {
      onAbort()
      return
    }
    signal.addEventListener('abort', onAbort, { once: true })
    socket.on('data', (chunk: Buffer) => {
      lastAt = performance.now()
      if (!firstAt) firstAt = lastAt
      const room = TCP_LIMITS.maxReplyBytes - received
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room)
      chunks.push(kept)
      received += kept.length
      if (received >= TCP_LIMITS.maxReplyBytes) {
        finish(undefined, true)
        return
      }
      if (quietTimer) quietTimer.refresh()
      else quietTimer = setTimeout(() => finish(undefined), quietGapMs)
    })
    socket.on('end', () => {
      if (received === 0 && !firstAt) lastAt = performance.now()
      finish(undefined, false, true)
    })
    socket.on('error', (err) => {
      if (received > 0) finish(undefined)
      else finish(new PhaseError('response', err))
    })
    sentAt = performance.now()
    socket.write(data)
  })
}

interface Failure {
  err: unknown
  phase: Phase
  target: string
  deadline: RunDeadline
  ctx: ProbeContext
  timings: Timings
  remoteAddress: string | undefined
  notes: string[]
  limitMs: number
}

function failed({
  err,
  phase,
  target,
  deadline,
  ctx,
  timings,
  remoteAddress,
  notes,
  limitMs,
}: Failure): ProbeOutcome {
  const failedPhase = err instanceof PhaseError ? err.phase : phase
  let error: ClassifiedError
  if (deadline.signal.aborted) {
    error = timeoutError(failedPhase, target, deadline.elapsed(), deadline.timedOut ? limitMs : undefined)
    if (failedPhase === 'response')
      error.message = `no reply to the data sent within ${Math.round(deadline.elapsed())} ms (${target})`
    if (!deadline.timedOut)
      error.message += `: the job was stopped (${String(ctx.signal.reason ?? 'aborted')})`
  } else {
    error = classifyNetworkError(err, failedPhase, target)
  }
  const details: Record<string, unknown> = { phase: failedPhase }
  if (remoteAddress) details.remoteAddress = remoteAddress
  if (notes.length > 0) details.notes = notes
  return {
    status: 'failed',
    responseTimeMs: roundMs(deadline.elapsed()),
    error: { code: error.code, message: error.message },
    assertions: [],
    timings: roundTimings(timings),
    details,
  }
}

function validate(check: TcpCheck): string | undefined {
  const r = check.request
  if (!r.hostname || typeof r.hostname !== 'string')
    return `request.hostname '${String(r.hostname)}' must be a host name or IP`
  if (!Number.isInteger(r.port) || r.port < 1 || r.port > 65_535) {
    return `request.port '${String(r.port)}' is not allowed (an integer from 1 to 65535)`
  }
  if (r.data !== undefined && typeof r.data !== 'string') return `request.data must be a string`
  return undefined
}
