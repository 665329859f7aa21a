// Pure schedule arithmetic. A check's runs fall on a fixed grid: every `frequency`, shifted by an
// offset derived from its logicalId. The offset is stable across restarts and agents, so runs of
// many checks with one frequency spread evenly instead of all firing at the top of the minute.

import { createHash } from 'node:crypto'

export function stableOffsetMs(logicalId: string, frequencyMs: number): number {
  const digest = createHash('sha256').update(logicalId).digest()
  return digest.readUInt32BE(0) % Math.max(1, frequencyMs)
}

/** The first due time on the check's grid that is at or after `now`. */
export function nextDueAt(now: number, frequencyMs: number, offsetMs: number): number {
  const k = Math.ceil((now - offsetMs) / frequencyMs)
  return k * frequencyMs + offsetMs
}

/** Seconds to wait before retry number `retry` (1-based) under a retry strategy. */
export function retryBackoffSeconds(
  type: 'NONE' | 'FIXED' | 'LINEAR' | 'EXPONENTIAL',
  baseBackoffSeconds: number,
  retry: number,
): number {
  if (type === 'LINEAR') return baseBackoffSeconds * retry
  if (type === 'EXPONENTIAL') return baseBackoffSeconds * 2 ** (retry - 1)
  return baseBackoffSeconds
}
