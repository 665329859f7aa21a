// The state of one heartbeat and how a ping changes it (healthchecks.io's Check.ping, as a pure function).

export const PingKind = { success: 'success', start: 'start', fail: 'fail', log: 'log' } as const
export type PingKind = (typeof PingKind)[keyof typeof PingKind]

export interface PingInput {
  at: number
  kind: PingKind
  /** /ping/<token>/<exit-status>; 0 arrives as kind success, 1..255 as fail. */
  exitStatus?: number
  /** Pairs a start with its end. */
  rid?: string
  method: string
  remoteAddress?: string
  userAgent?: string
  /** Scrubbed and cut to the body limit. */
  body?: string
  /** Size of the body as sent, before cutting. */
  bodyBytes?: number
}

export interface PingRecord extends PingInput {
  /** Time from the paired start ping, for success and fail pings that had one. */
  durationMs?: number
}

export interface HeartbeatState {
  token: string
  checkId: string
  /** When the agent first knew this heartbeat: the clock for a heartbeat that never pinged. */
  createdAt: number
  /** Set by success and fail pings only, as in healthchecks.io. */
  lastPingAt: number | null
  lastPingKind: 'success' | 'fail' | null
  lastSuccessAt: number | null
  lastFailAt: number | null
  lastExitStatus: number | null
  /** A run that started and has not ended yet; cleared by the next success or fail. */
  runningSince: number | null
  lastDurationMs: number | null
  /** Start times by rid ('' for starts without one), to measure durations. */
  openStarts: Record<string, number>
  /** The last time a period was judged; the next period's fail pings are counted after it. */
  lastEvaluatedAt: number | null
  pingCount: number
  recentPings: PingRecord[]
}

export const RECENT_PINGS_KEPT = 20
/** Starts never ended (a crashed job) stop pairing after this long, like healthchecks.io's 72 h. */
export const OPEN_START_MAX_AGE_MS = 72 * 3_600_000
const OPEN_STARTS_KEPT = 50

export function newHeartbeatState(token: string, checkId: string, createdAt: number): HeartbeatState {
  return {
    token,
    checkId,
    createdAt,
    lastPingAt: null,
    lastPingKind: null,
    lastSuccessAt: null,
    lastFailAt: null,
    lastExitStatus: null,
    runningSince: null,
    lastDurationMs: null,
    openStarts: {},
    lastEvaluatedAt: null,
    pingCount: 0,
    recentPings: [],
  }
}

export function applyPing(state: HeartbeatState, ping: PingInput): HeartbeatState {
  const openStarts = pruneStarts(state.openStarts, ping.at)
  const record: PingRecord = { ...ping }
  const next: HeartbeatState = { ...state, openStarts, pingCount: state.pingCount + 1 }
  const ridKey = ping.rid ?? ''
  if (ping.kind === 'start') {
    openStarts[ridKey] = ping.at
    next.runningSince = ping.at
  } else if (ping.kind === 'success' || ping.kind === 'fail') {
    const startedAt = openStarts[ridKey]
    if (startedAt !== undefined) {
      record.durationMs = ping.at - startedAt
      delete openStarts[ridKey]
    }
    next.lastDurationMs = record.durationMs ?? null
    next.lastPingAt = ping.at
    next.lastPingKind = ping.kind
    next.lastExitStatus = ping.exitStatus ?? null
    next.runningSince = null
    if (ping.kind === 'success') next.lastSuccessAt = ping.at
    else next.lastFailAt = ping.at
  }
  next.recentPings = [...state.recentPings, record].slice(-RECENT_PINGS_KEPT)
  return next
}

function pruneStarts(starts: Record<string, number>, now: number): Record<string, number> {
  const kept = Object.entries(starts)
    .filter(([, at]) => now - at <= OPEN_START_MAX_AGE_MS)
    .sort((a, b) => b[1] - a[1])
    .slice(0, OPEN_STARTS_KEPT)
  return Object.fromEntries(kept)
}
