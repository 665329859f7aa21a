// pino JSON to stdout (pretty on a terminal). Every line passes through the scrubber before it is
// written, so no code path can log a secret by accident.

import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino'
import pretty from 'pino-pretty'
import type { Scrubber } from '../secrets/scrubber.ts'

export type Logger = PinoLogger
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export interface LoggerOptions {
  level: LogLevel
  scrubber: Scrubber
  /** Defaults to stdout; tests pass their own. */
  destination?: DestinationStream
  /** Human-readable output; defaults to whether stdout is a terminal. */
  pretty?: boolean
  base?: Record<string, unknown>
}

export function createLogger(options: LoggerOptions): Logger {
  const usePretty = options.pretty ?? (process.stdout.isTTY === true && options.destination === undefined)
  const destination =
    options.destination ??
    (usePretty
      ? pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
      : pino.destination({ fd: 1, sync: false }))
  return pino(
    {
      level: options.level,
      base: options.base ?? {},
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: (line) => options.scrubber.text(line) },
    },
    destination,
  )
}
