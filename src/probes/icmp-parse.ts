// Turns the system ping's stdout into numbers. The line parsing is the `ping` package's own Linux
// parser (node-ping); it reports figures as strings ("0.292"), 'unknown' when a figure is missing, and
// reads an error line as if it were the header (host "nosuch.invalid:", address "am"). So we feed it
// stdout only (errors go to stderr) and convert every figure to a number or null here.

import { createRequire } from 'node:module'

/** The subset of node-ping's parse result we read; each figure may be a number, a string or 'unknown'. */
interface NodePingParse {
  numeric_host?: string
  times: unknown[]
  min: unknown
  max: unknown
  avg: unknown
  stddev: unknown
  packetLoss: unknown
}

interface NodePingParser {
  eat(line: string): unknown
  getResult(): NodePingParse
}

interface NodePingParserFactory {
  createParser(addr: string, platform: string, config?: Record<string, unknown>): NodePingParser
}

export interface IcmpStats {
  /** The address ping resolved and sent to, when ping got that far. */
  address: string | null
  transmitted: number | null
  received: number | null
  /** Percent, 0..100. */
  packetLoss: number | null
  min: number | null
  avg: number | null
  max: number | null
  stdDev: number | null
  /** Round-trip time of each reply, in ms, in arrival order. */
  rtts: number[]
}

const requireCjs = createRequire(import.meta.url)

function loadParserFactory(): NodePingParserFactory {
  // node-ping 1.0.0 has no "exports" map, so its parser module is reachable; the version is pinned.
  return requireCjs('ping/lib/parser/factory.js') as NodePingParserFactory
}

/** 'unknown', '', NaN and non-finite values become null; numeric strings become numbers. */
export function toNumberOrNull(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string') return null
  const trimmed = value.trim()
  if (trimmed === '' || trimmed === 'unknown') return null
  const n = Number(trimmed)
  return Number.isFinite(n) ? n : null
}

export function parsePingOutput(host: string, stdout: string): IcmpStats {
  const parser = loadParserFactory().createParser(host, 'linux', {})
  for (const line of stdout.split('\n')) parser.eat(line)
  const parsed = parser.getResult()
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(stdout)
  const transmitted = counts ? Number(counts[1]) : null
  const received = counts ? Number(counts[2]) : null
  let packetLoss = toNumberOrNull(parsed.packetLoss)
  // ping rounds loss to whole percent in some versions; the counts are exact.
  if (transmitted !== null && received !== null && transmitted > 0) {
    packetLoss = round3(Math.max(0, ((transmitted - Math.min(received, transmitted)) / transmitted) * 100))
  }
  const rtts = parsed.times.map(toNumberOrNull).filter((n): n is number => n !== null)
  const address =
    typeof parsed.numeric_host === 'string' && parsed.numeric_host !== '' ? parsed.numeric_host : null
  return {
    address: received !== null || rtts.length > 0 ? address : null,
    transmitted,
    received,
    packetLoss,
    min: toNumberOrNull(parsed.min),
    avg: toNumberOrNull(parsed.avg),
    max: toNumberOrNull(parsed.max),
    stdDev: toNumberOrNull(parsed.stddev),
    rtts,
  }
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000
}
