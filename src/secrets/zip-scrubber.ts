// Rewrites a zip file (a Playwright trace.zip or any zipped artifact) with every entry's content,
// name and comment scrubbed. Entries are streamed one at a time from the source, through the
// scrubber, into the new file, so memory stays flat whatever the archive's size. Zips inside the
// zip (a trace.zip among a run's artifacts) are unpacked to a temp dir and rewritten the same way.

import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { finished, pipeline } from 'node:stream/promises'
import yauzl from 'yauzl'
import yazl from 'yazl'
import { scrubbedReadable } from './scrubbed-readable.ts'
import type { Scrubber } from './scrubber.ts'

export interface ZipScrubOptions {
  readonly scrubber: Scrubber
  /** The zip to read; left as it is. */
  readonly source: string
  /** Where the scrubbed zip is written; replaced if it exists, removed again on failure. */
  readonly destination: string
  /** Where zips nested inside the zip are unpacked while they are scrubbed; defaults to the OS temp dir. */
  readonly tempDir?: string
}

export interface ZipScrubReport {
  readonly entries: number
}

export class ZipScrubError extends Error {
  override readonly name = 'ZipScrubError'
}

const STORED = 0
// A zip inside a zip is compressed, so its secrets are invisible to a byte scan: it is unpacked and
// scrubbed in turn. Archives are recognised by name; deeper nesting than this is refused.
const NESTED_ZIP_NAME = /\.(zip|jar|war|apk|docx|xlsx|pptx|odt|ods|odp|epub)$/i
const MAX_NESTING = 3
const ZIP_MAGIC = [Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('PK\x05\x06', 'latin1')]

async function looksLikeZip(file: string): Promise<boolean> {
  const handle = await open(file)
  try {
    const head = Buffer.alloc(4)
    const { bytesRead } = await handle.read(head, 0, 4, 0)
    return bytesRead === 4 && ZIP_MAGIC.some((magic) => magic.equals(head))
  } finally {
    await handle.close()
  }
}

/**
 * The scrubbed content of a nested archive entry: unpacked to a temp dir and rewritten like the
 * outer zip, or scrubbed as plain bytes when it is not a zip after all. `use` must finish with the
 * stream before the temp dir goes.
 */
async function withNestedZip(
  raw: Readable,
  name: string,
  options: ZipScrubOptions,
  depth: number,
  use: (content: Readable) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(path.join(options.tempDir ?? tmpdir(), 'outpost-nested-zip-'))
  try {
    const unpacked = path.join(dir, 'nested.zip')
    const scrubbed = path.join(dir, 'nested.scrubbed.zip')
    await pipeline(raw, createWriteStream(unpacked))
    if (!(await looksLikeZip(unpacked))) {
      await use(scrubbedReadable(createReadStream(unpacked), options.scrubber))
      return
    }
    if (depth >= MAX_NESTING) {
      throw new ZipScrubError(
        `${options.source}: entry ${name} nests zips more than ${MAX_NESTING} deep; the zip is refused`,
      )
    }
    await scrubZipAt({ ...options, source: unpacked, destination: scrubbed }, depth + 1)
    await use(createReadStream(scrubbed))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

async function copyEntries(
  input: yauzl.ZipFile,
  output: yazl.ZipFile,
  options: ZipScrubOptions,
  depth: number,
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
    const add = async (content: Readable) => {
      const consumed = finished(content)
      output.addReadStream(content, name, {
        mtime,
        ...(mode === undefined ? {} : { mode }),
        compress: entry.compressionMethod !== STORED,
        fileComment: scrubber.text(entry.fileComment),
      })
      // One entry at a time: yazl reads the stream only when its turn comes, and waiting keeps a
      // single entry in flight instead of one open stream per entry.
      await consumed
    }
    if (NESTED_ZIP_NAME.test(entry.fileName)) await withNestedZip(raw, name, options, depth, add)
    else await add(scrubbedReadable(raw, scrubber))
  }
  return entries
}

export function scrubZipFile(options: ZipScrubOptions): Promise<ZipScrubReport> {
  return scrubZipAt(options, 0)
}

async function scrubZipAt(options: ZipScrubOptions, depth: number): Promise<ZipScrubReport> {
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
    const entries = await Promise.race([copyEntries(input, output, options, depth), writeFailed])
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
