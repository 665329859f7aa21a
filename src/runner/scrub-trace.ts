// Scrubs a trace.zip (or any zipped artifact) in place with the shared zip scrubber, which rewrites
// every entry's bytes, name and comment, nested zips included.

import { rename, rm } from 'node:fs/promises'
import type { Scrubber } from '../secrets/scrubber.ts'
import { scrubZipFile } from '../secrets/zip-scrubber.ts'

export async function scrubZipInPlace(path: string, scrubber: Scrubber, tempDir: string): Promise<void> {
  const scrubbed = `${path}.scrubbed`
  try {
    await scrubZipFile({ scrubber, source: path, destination: scrubbed, tempDir })
    await rename(scrubbed, path)
  } catch (err) {
    // A trace that cannot be scrubbed is never kept in clear.
    await rm(path, { force: true })
    await rm(scrubbed, { force: true })
    throw err
  }
}
