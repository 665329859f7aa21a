// CheckResult: what every run produces (DESIGN.md §3). Additive changes only; never rename.

import type { CheckType, RuntimeId } from './checks.ts'

export const ResultStatus = { passed: 'passed', degraded: 'degraded', failed: 'failed' } as const
export type ResultStatus = (typeof ResultStatus)[keyof typeof ResultStatus]

export interface ResultError {
  /** Stable, machine-readable: TIMEOUT, CONNECTION_REFUSED, ASSERTION_FAILED, SHUTDOWN, ... */
  code: string
  message: string
}

export interface AssertionResult {
  source: string
  property?: string
  comparison: string
  target: string
  actual: string | number | boolean | null
  passed: boolean
}

export interface Timings {
  dns: number
  connect: number
  tls: number
  firstByte: number
  download: number
}

export interface StepResult {
  name: string
  status: 'passed' | 'failed' | 'skipped'
  durationMs: number
  error?: string
}

export interface LogLine {
  time: string
  level: 'debug' | 'info' | 'warn' | 'error'
  message: string
}

export interface ArtifactRef {
  name: string
  kind: string
  size: number
  sha256: string
  /** Where it is kept: a path under the data dir, or the hub's URL once uploaded. */
  location: string
  /** Set when the artifact was not kept or uploaded, and why (for example over the size limit). */
  note?: string
}

export interface AgentInfo {
  id: string
  version: string
  flavor: 'full' | 'uptime'
}

export interface CheckResult {
  id: string
  checkId: string
  checkType: CheckType
  name: string
  status: ResultStatus
  startedAt: string
  durationMs: number
  responseTimeMs?: number
  location: string
  attempt: number
  /** True when the scheduler will run the check again under its retry strategy. */
  willRetry?: boolean
  sessionId?: string
  runtimeId?: RuntimeId
  error?: ResultError
  assertions: AssertionResult[]
  timings?: Timings
  steps?: StepResult[]
  logs?: LogLine[]
  artifacts: ArtifactRef[]
  /** Probe-specific facts (DNS rcode and answers, ICMP statistics, TLS expiry, notes). */
  details?: Record<string, unknown>
  agent: AgentInfo
}
