// Facts read out of a Playwright trace: the request log (every request Playwright made, from the
// trace's network entries) and every Authorization header value the trace holds.

import type { ZipEntry } from './zip.ts'

export interface RequestLogEntry {
  method: string
  url: string
  status?: number
  durationMs?: number
  startedAt?: string
  /** True for the `request` fixture (APIRequestContext); false for browser page traffic. */
  api: boolean
}

interface NetworkSnapshot {
  startedDateTime?: string
  time?: number
  request?: { method?: string; url?: string }
  response?: { status?: number }
  _apiRequest?: boolean
}

export function isTextEntry(data: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data)
    return true
  } catch {
    return false
  }
}

/** A page load can make hundreds of requests; the result keeps the first ones. */
export const MAX_REQUESTS = 500

export function requestLogFromTrace(entries: ZipEntry[]): RequestLogEntry[] {
  const log: RequestLogEntry[] = []
  for (const entry of entries) {
    if (!entry.name.endsWith('.network')) continue
    for (const line of entry.data.toString('utf8').split('\n')) {
      if (!line.includes('"resource-snapshot"')) continue
      let parsed: { type?: string; snapshot?: NetworkSnapshot }
      try {
        parsed = JSON.parse(line)
      } catch {
        continue
      }
      const snap = parsed.snapshot
      if (parsed.type !== 'resource-snapshot' || !snap?.request?.url) continue
      const status = snap.response?.status
      log.push({
        method: snap.request.method ?? 'GET',
        url: snap.request.url,
        status: typeof status === 'number' && status > 0 ? status : undefined,
        durationMs: typeof snap.time === 'number' && snap.time >= 0 ? Math.round(snap.time) : undefined,
        startedAt: snap.startedDateTime,
        api: snap._apiRequest === true,
      })
    }
  }
  return log.sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '')).slice(0, MAX_REQUESTS)
}

// Headers appear as {"name":"Authorization","value":"..."} (network entries, action params) or as
// {"Authorization":"..."} (headers passed as an object).
const PAIR_FORM = /"name"\s*:\s*"authorization"\s*,\s*"value"\s*:\s*"((?:[^"\\]|\\.)*)"/gi
const OBJECT_FORM = /"authorization"\s*:\s*"((?:[^"\\]|\\.)*)"/gi

function unescapeJson(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string
  } catch {
    return s
  }
}

export function authorizationValuesInText(text: string): string[] {
  const values = new Set<string>()
  for (const re of [PAIR_FORM, OBJECT_FORM]) {
    for (const m of text.matchAll(re)) if (m[1]) values.add(unescapeJson(m[1]))
  }
  return [...values]
}

export function authorizationValuesInTrace(entries: ZipEntry[]): string[] {
  const values = new Set<string>()
  for (const entry of entries) {
    if (!isTextEntry(entry.data)) continue
    for (const v of authorizationValuesInText(entry.data.toString('utf8'))) values.add(v)
  }
  return [...values]
}
