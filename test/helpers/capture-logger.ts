import { Writable } from 'node:stream'
import { createScrubber, type Scrubber } from '../../src/secrets/scrubber.ts'
import { createLogger, type Logger } from '../../src/telemetry/logger.ts'

/** A real pino logger whose lines are kept in memory, parsed, for assertions. */
export function captureLogger(scrubber: Scrubber = createScrubber([])): {
  log: Logger
  lines: () => string[]
} {
  const chunks: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk))
      callback()
    },
  })
  const log = createLogger({ level: 'debug', scrubber, destination, pretty: false })
  return { log, lines: () => chunks.join('').split('\n').filter(Boolean) }
}
