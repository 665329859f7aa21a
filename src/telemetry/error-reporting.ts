// Reports the agent's own errors to Sentry, unless EXTERNAL_OBSERVABILITY=off or no SENTRY_DSN is
// set; then the SDK is not even imported. A private client and scope, with no integrations: no
// instrumentation of outgoing requests (so no sentry-trace/baggage headers on a check's requests),
// no breadcrumbs, no sessions, no source lines, no performance data.

import path from 'node:path'
import type { Scrubber } from '../secrets/scrubber.ts'
import { minimalEvent, type SdkEvent } from './error-event.ts'
import type { Logger } from './logger.ts'

export interface ErrorReporter {
  readonly enabled: boolean
  capture(error: unknown): void
  /** Waits for events in flight, at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>
}

export interface ErrorReporterOptions {
  externalObservability: boolean
  dsn?: string
  version: string
  scrubber: Scrubber
  log: Logger
}

const DISABLED: ErrorReporter = { enabled: false, capture: () => {}, flush: async () => {} }

export async function createErrorReporter(options: ErrorReporterOptions): Promise<ErrorReporter> {
  if (!options.externalObservability) {
    options.log.info('error reporting off (EXTERNAL_OBSERVABILITY=off)')
    return DISABLED
  }
  if (!options.dsn) {
    options.log.debug('error reporting off: no SENTRY_DSN set')
    return DISABLED
  }
  const Sentry = await import('@sentry/node')
  const facts = { version: options.version, appRoot: path.resolve(import.meta.dirname, '../..') }
  const client = new Sentry.NodeClient({
    dsn: options.dsn,
    release: `outpost-agent@${options.version}`,
    integrations: [],
    stackParser: Sentry.defaultStackParser,
    transport: Sentry.makeNodeTransport,
    sendClientReports: false,
    maxBreadcrumbs: 0,
    tracePropagationTargets: [],
    beforeBreadcrumb: () => null,
    beforeSend: (event) => {
      if (event.level !== undefined && event.level !== 'error' && event.level !== 'fatal') return null
      // The SDK's type is wider than what we keep; the minimal event is a valid subset of it.
      return minimalEvent(event as SdkEvent, facts, options.scrubber) as unknown as typeof event
    },
  })
  const scope = new Sentry.Scope()
  scope.setClient(client)
  client.init()
  options.log.info('error reporting on (SENTRY_DSN set; EXTERNAL_OBSERVABILITY=off turns it off)')
  return {
    enabled: true,
    capture(error) {
      scope.captureException(error instanceof Error ? error : new Error(options.scrubber.text(String(error))))
    },
    async flush(timeoutMs) {
      await client.flush(timeoutMs)
    },
  }
}
