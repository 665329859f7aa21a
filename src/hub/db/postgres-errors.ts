// Which pg errors mean "PostgreSQL is out of reach" (stopped, restarting, the connection cut) and
// which mean "this value cannot be stored" (NUL in text). Everything else is left as it is: a bug or
// a constraint the store handles.

import { DatabaseOverloadedError, DatabaseUnavailableError, UnstorableValueError } from './errors.ts'

// Socket errors of the connection itself, worded without the address: the message reaches callers
// that have not authenticated (the API key check needs the database too).
const NETWORK_CODES = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['ECONNRESET', 'connection reset'],
  ['ECONNABORTED', 'connection aborted'],
  ['EPIPE', 'connection closed'],
  ['ETIMEDOUT', 'connection timed out'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['ENETUNREACH', 'network unreachable'],
  ['ENOTFOUND', 'host not found'],
  ['EAI_AGAIN', 'host name lookup failed'],
])

// SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now (starting up / shutting down),
// idle_session_timeout, too_many_connections, and the whole connection-exception class 08.
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '57P05', '53300'])

// character_not_in_repertoire (22021) and untranslatable_character (22P05): PostgreSQL's answer to
// U+0000 in text and in jsonb.
const UNSTORABLE_STATES = new Set(['22021', '22P05'])

const POOL_EXHAUSTED = /^timeout exceeded when trying to connect/

// pg's own errors for a connection that ended or never came; they carry no code.
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  // query_timeout: the server took the statement and never answered.
  /^Query read timeout/,
  /is not queryable$/,
  /^Cannot use a pool after calling end/,
]

function reasonOf(error: Error & { code?: unknown }): string {
  const network = typeof error.code === 'string' ? NETWORK_CODES.get(error.code) : undefined
  return `PostgreSQL: ${network ?? error.message.slice(0, 200)}`
}

/** The error to throw instead of `error`: a DatabaseUnavailableError, an UnstorableValueError, or `error` itself. */
export function translatePostgresError(error: unknown): unknown {
  if (!(error instanceof Error)) return error
  const { code } = error as { code?: unknown }
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) {
      return new DatabaseUnavailableError(reasonOf(error), { cause: error })
    }
    if (UNSTORABLE_STATES.has(code)) return new UnstorableValueError(reasonOf(error), { cause: error })
  }
  // pg-pool's answer to a connect that waited its whole timeout for a free connection of the pool:
  // overload, not an outage (a connection that could not be opened fails on its own terms above).
  if (POOL_EXHAUSTED.test(error.message)) {
    return new DatabaseOverloadedError(
      'PostgreSQL: every connection of the hub was in use for the whole connection timeout',
      { cause: error },
    )
  }
  if (CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message))) {
    return new DatabaseUnavailableError(reasonOf(error), { cause: error })
  }
  // AggregateError: a connect that failed on every address (127.0.0.1 and ::1).
  if (error instanceof AggregateError && error.errors.length > 0) {
    const inner = translatePostgresError(error.errors[0])
    if (inner instanceof DatabaseUnavailableError) return inner
  }
  return error
}
