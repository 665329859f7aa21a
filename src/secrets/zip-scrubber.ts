// Rewrites a zip file (a Playwright trace.zip or any zipped artifact) with every entry's content,
// name and comment scrubbed. Entries are streamed one at a time from the source, through the
// scrubber, into the new file, so memory stays flat whatever the archive's size.

import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { finished, pipeline } from 'node:stream/promises'
import yauzl from 'yauzl'
import yazl from 'yazl'
import type { Scrubber } from './scrubber.ts'

export interface ZipScrubOptions {
  readonly scrubber: Scrubber
  /** The zip to read; left as it is. */
  readonly source: string
  /** Where the scrubbed zip is written; replaced if it exists, removed again on failure. */
  readonly destination: string
}

export interface ZipScrubReport {
  readonly entries: number
}

export class ZipScrubError extends Error {
  override readonly name = 'ZipScrubError'
}

const STORED = 0

function scrubbedEntryStream(raw: Readable, scrubber: Scrubber): Readable {
  const web = Readable.toWeb(raw) as ReadableStream<Uint8Array>
  return Readable.fromWeb(web.pipeThrough(scrubber.stream()) as import('node:stream/web').ReadableStream)
}

async function copyEntries(
  input: yauzl.ZipFile,
  output: yazl.ZipFile,
  options: ZipScrubOptions,
): Promise<number> {
  const { scrubber, source } = options
  let entries = 0
  for await (const entry of input.eachEntry()) {
    entries++
    // Names can hold secrets too: Playwright names some resources after URLs.
    const name = scrubber.text(entry.fileName)
    const mtime = entry.getLastModDate()
    const unixMode = entry.externalFileAttributes >>> 16
    const mode = unixMode === 0 ? undefined : unixMode
    if (entry.fileName.endsWith('/')) {
      output.addEmptyDirectory(name, { mtime, ...(mode === undefined ? {} : { mode }) })
      continue
    }
    if (entry.isEncrypted()) {
      throw new ZipScrubError(
        `${source}: entry ${name} is encrypted, so it cannot be scrubbed; the zip is refused`,
      )
    }
    const raw = await input.openReadStreamPromise(entry)
    const scrubbed = scrubbedEntryStream(raw, scrubber)
    const consumed = finished(scrubbed)
    output.addReadStream(scrubbed, name, {
      mtime,
      ...(mode === undefined ? {} : { mode }),
      compress: entry.compressionMethod !== STORED,
      fileComment: scrubber.text(entry.fileComment),
    })
    // One entry at a time: yazl reads the stream only when its turn comes, and waiting keeps a
    // single entry in flight instead of one open stream per entry.
    await consumed
  }
  return entries
}

export async function scrubZipFile(options: ZipScrubOptions): Promise<ZipScrubReport> {
  const { scrubber, source, destination } = options
  let input: yauzl.ZipFile
  try {
    input = await yauzl.openPromise(source, { lazyEntries: true, autoClose: false, strictFileNames: false })
  } catch (error) {
    throw new ZipScrubError(`${source}: not a readable zip file (${(error as Error).message})`)
  }
  const output = new yazl.ZipFile()
  const file = createWriteStream(destination)
  const written = pipeline(output.outputStream, file)
  // A failing write (disk full) would otherwise leave copyEntries waiting for yazl forever.
  const writeFailed = new Promise<never>((_resolve, reject) => {
    written.catch(reject)
  })
  try {
    const entries = await Promise.race([copyEntries(input, output, options), writeFailed])
    output.end({ forceZip64Format: false, comment: scrubber.text(input.comment) })
    await written
    return { entries }
  } catch (error) {
    file.destroy()
    await written.catch(() => {})
    await rm(destination, { force: true })
    if (error instanceof ZipScrubError) throw error
    throw new ZipScrubError(`${source}: scrubbing into ${destination} failed (${(error as Error).message})`)
  } finally {
    input.close()
  }
}
