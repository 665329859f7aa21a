// Where results go. Standalone: one JSON line per result appended to results.ndjson, and one log
// line. The hub reporter implements the same interface.

import { type FileHandle, mkdir, open } from 'node:fs/promises'
import path from 'node:path'
import type { CheckResult } from '../model/result.ts'
import type { Logger } from '../telemetry/logger.ts'

export interface ResultSink {
  write(result: CheckResult): Promise<void>
  /** Everything written so far is durable when this resolves. */
  flush(): Promise<void>
}

export async function createNdjsonSink(
  file: string,
  log: Logger,
): Promise<ResultSink & { close(): Promise<void> }> {
  await mkdir(path.dirname(file), { recursive: true })
  const handle: FileHandle = await open(file, 'a+')
  // Where the last whole line ends: a write that fails part-way (disk full) is cut back to it, so
  // the file never holds half a line and the next line starts clean.
  let size = await endOfLastWholeLine(handle)
  await handle.truncate(size)
  const append = async (line: string): Promise<void> => {
    try {
      await handle.appendFile(line)
      size += Buffer.byteLength(line)
    } catch (error) {
      await handle.truncate(size).catch(() => {})
      log.error(
        { file, err: error },
        `could not write a result to ${file}: ${(error as Error).message}; the result is lost`,
      )
      throw error
    }
  }
  // Writes are chained so lines never interleave and flush waits for all of them; one failed write
  // does not fail the ones after it (space may come back).
  let tail: Promise<void> = Promise.resolve()
  return {
    write(result) {
      const line = `${JSON.stringify(result)}\n`
      const written = tail.then(() => append(line))
      tail = written.catch(() => {})
      log.info(
        {
          checkId: result.checkId,
          checkType: result.checkType,
          status: result.status,
          durationMs: result.durationMs,
          attempt: result.attempt,
          ...(result.error ? { error: result.error } : {}),
        },
        `${result.checkType} ${result.checkId}: ${result.status}`,
      )
      return written
    },
    async flush() {
      await tail
      await handle.sync()
    },
    async close() {
      await tail
      await handle.close()
    },
  }
}

/** A process killed mid-write can leave half a line at the end; it is dropped rather than continued. */
async function endOfLastWholeLine(handle: FileHandle): Promise<number> {
  const { size } = await handle.stat()
  const window = Math.min(size, 1 << 20)
  if (window === 0) return 0
  const tail = Buffer.alloc(window)
  await handle.read(tail, 0, window, size - window)
  if (tail[window - 1] === 0x0a) return size
  const newline = tail.lastIndexOf(0x0a)
  // A single line longer than the window is not ours to judge: keep it.
  return newline >= 0 ? size - window + newline + 1 : window === size ? 0 : size
}

/** Fans each result out to several sinks (for example results.ndjson and a test reporter). */
export function teeSink(sinks: readonly ResultSink[]): ResultSink {
  return {
    write: async (result) => {
      await Promise.all(sinks.map((s) => s.write(result)))
    },
    flush: async () => {
      await Promise.all(sinks.map((s) => s.flush()))
    },
  }
}
