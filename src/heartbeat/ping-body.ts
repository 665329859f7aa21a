// What we keep of a ping's body: at most the limit (healthchecks.io's PING_BODY_LIMIT, 10,000 bytes),
// scrubbed. Scrubbing happens before cutting, on a little more than we keep, so a secret that straddles
// the cut is still found and replaced rather than left half visible.

import type { Readable } from 'node:stream'
import type { Scrubber } from '../secrets/scrubber.ts'

export const PING_BODY_LIMIT_BYTES = 10_000
/** Read past the limit only this far (for the scrubber); the rest is counted and dropped. */
const SCRUB_MARGIN_BYTES = 4096

export interface CapturedBody {
  /** The first bytes, up to the limit plus the scrub margin. */
  head: Buffer
  totalBytes: number
}

/** Reads a request body, keeping only its head; nothing beyond `maxTotalBytes` is read. */
export function captureBody(
  stream: Readable,
  limit: number,
  maxTotalBytes: number,
): Promise<CapturedBody | { tooLarge: true; totalBytes: number }> {
  const keep = limit + SCRUB_MARGIN_BYTES
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let kept = 0
    let total = 0
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length
      if (total > maxTotalBytes) {
        stream.removeAllListeners('data')
        stream.resume()
        resolve({ tooLarge: true, totalBytes: total })
        return
      }
      if (kept < keep) {
        const slice = chunk.subarray(0, keep - kept)
        chunks.push(slice)
        kept += slice.length
      }
    })
    stream.once('end', () => resolve({ head: Buffer.concat(chunks), totalBytes: total }))
    stream.once('error', reject)
  })
}

/** Scrubbed text of at most `limit` UTF-8 bytes, never ending in half a character. */
export function keptBodyText(head: Buffer, limit: number, scrubber: Scrubber): string {
  const scrubbed = Buffer.from(scrubber.text(head.toString('utf8')), 'utf8')
  if (scrubbed.length <= limit) return scrubbed.toString('utf8')
  let end = limit
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character boundary.
  while (end > 0 && ((scrubbed[end] ?? 0) & 0xc0) === 0x80) end -= 1
  return scrubbed.subarray(0, end).toString('utf8')
}
