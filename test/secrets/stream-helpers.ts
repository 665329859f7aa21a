// Pushes bytes through a real TransformStream in the given pieces and collects what comes out.

import type { Scrubber } from '../../src/secrets/scrubber.ts'

export function splitAt(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = []
  let offset = 0
  for (const size of sizes) {
    if (offset >= bytes.length) break
    chunks.push(bytes.slice(offset, offset + size))
    offset += size
  }
  if (offset < bytes.length) chunks.push(bytes.slice(offset))
  return chunks
}

export async function scrubChunks(scrubber: Scrubber, chunks: readonly Uint8Array[]): Promise<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
  const out: Uint8Array[] = []
  for await (const chunk of source.pipeThrough(scrubber.stream())) out.push(chunk)
  return new Uint8Array(Buffer.concat(out))
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export const utf8 = (s: string): Uint8Array => encoder.encode(s)
export const fromUtf8 = (b: Uint8Array): string => decoder.decode(b)

/**
 * Whether `secret` can be read back from base64 anywhere in `text`: every run of base64 (or
 * base64url) characters is decoded at each of its four character offsets.
 */
export function base64Recovers(text: string, secret: string): boolean {
  const needle = Buffer.from(utf8(secret))
  for (const run of text.match(/[A-Za-z0-9+/\-_]+/g) ?? []) {
    for (let offset = 0; offset < 4; offset++) {
      // Buffer's decoder accepts a run without padding and decodes its partial last group too.
      const normalised = run.slice(offset).replaceAll('-', '+').replaceAll('_', '/')
      if (Buffer.from(normalised, 'base64').includes(needle)) return true
    }
  }
  return false
}
