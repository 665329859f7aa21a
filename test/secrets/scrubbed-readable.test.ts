import { createReadStream } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { text } from 'node:stream/consumers'
import { describe, expect, it } from 'vitest'
import { scrubbedReadable } from '../../src/secrets/scrubbed-readable.ts'
import { createScrubber, SCRUBBED } from '../../src/secrets/scrubber.ts'

describe('scrubbedReadable', () => {
  it('scrubs a file read in small chunks, secrets straddling the chunk edges', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'outpost-scrubbed-readable-'))
    try {
      const secret = 'tok_3f9a8b7c6d5e4f3a2b1c'
      const lines = Array.from(
        { length: 500 },
        (_, i) => `line ${i} token=${encodeURIComponent(secret)} raw=${secret}`,
      )
      const file = path.join(dir, 'log.txt')
      await writeFile(file, lines.join('\n'))
      const out = await text(
        scrubbedReadable(createReadStream(file, { highWaterMark: 7 }), createScrubber([secret])),
      )
      expect(out).toBe(lines.map((_, i) => `line ${i} token=${SCRUBBED} raw=${SCRUBBED}`).join('\n'))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
