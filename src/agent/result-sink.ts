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
  const handle: FileHandle = await open(file, 'a')
  // Writes are chained so lines never interleave and flush waits for all of them.
  let tail: Promise<void> = Promise.resolve()
  return {
    write(result) {
      const line = `${JSON.stringify(result)}\n`
      tail = tail.then(() => handle.appendFile(line).then(() => undefined))
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
      return tail
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
