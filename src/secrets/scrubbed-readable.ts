// The scrubber's web TransformStream as a Node Readable, for code built on node:stream
// (file uploads, fs streams, yazl). Backpressure carries through both conversions.

import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web'
import type { Scrubber } from './scrubber.ts'

export function scrubbedReadable(source: Readable, scrubber: Scrubber): Readable {
  const web = Readable.toWeb(source) as ReadableStream<Uint8Array>
  return Readable.fromWeb(web.pipeThrough(scrubber.stream()) as NodeWebReadableStream<Uint8Array>)
}
