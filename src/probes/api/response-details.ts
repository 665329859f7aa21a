// What an API check's result tells about the response: where it came from, the response as the
// server sent it (body included, bounded once scrubbed), redirects, TLS and notes.

import type { ProbeOutcome } from '../../model/probe.ts'
import type { HttpResult } from '../http/request.ts'

export function responseDetails(result: HttpResult, method: string, body: string): Record<string, unknown> {
  const details: Record<string, unknown> = {
    url: result.url,
    method,
    statusCode: result.statusCode,
    remoteAddress: result.remoteAddress,
    ipFamily: result.remoteFamily === 6 ? 'IPv6' : 'IPv4',
    response: {
      statusCode: result.statusCode,
      statusText: result.statusMessage,
      headers: result.headers,
      body,
      bodyBytes: result.body.length,
      bodyTruncated: result.bodyTruncated,
    },
  }
  if (result.redirects.length > 0) details.redirects = result.redirects
  if (result.certificate) details.tls = result.certificate
  if (result.notes.length > 0) details.notes = result.notes
  return details
}

/**
 * Cuts the bodies shown in the result to `maxChars`. Call it on a scrubbed outcome: cutting first
 * could leave part of a secret that the scrubber no longer recognises.
 */
export function keepBodiesBounded(outcome: ProbeOutcome, maxChars: number): ProbeOutcome {
  const details = outcome.details
  if (!details) return outcome
  for (const key of ['response', 'assertedResponse']) {
    const shown = details[key] as { body?: unknown; bodyShownChars?: number } | undefined
    if (shown && typeof shown.body === 'string' && shown.body.length > maxChars) {
      shown.body = `${shown.body.slice(0, maxChars)}…`
      shown.bodyShownChars = maxChars
    }
  }
  return outcome
}
