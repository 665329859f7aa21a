// Which SQLite failures mean "the database cannot take this now" (another process holds the lock,
// the disk is full, the disk failed, the file became read-only): answered 503 with a reason, as a
// PostgreSQL outage is, instead of a 500. Anything else (a constraint, a bug) is left as it is:
// SQLITE_LOCKED (6) among them, a conflict inside the hub's own single connection, which no retry by
// the client resolves.

import { DatabaseUnavailableError } from './errors.ts'

// Primary result codes (https://sqlite.org/rescode.html); node:sqlite gives the extended code in
// `errcode`, whose low byte is the primary one.
const UNAVAILABLE_CODES = new Map([
  [5, 'the database is locked by another process'], // SQLITE_BUSY
  [8, 'the database file is read-only'], // SQLITE_READONLY
  [10, 'disk I/O error'], // SQLITE_IOERR
  [13, 'the disk is full'], // SQLITE_FULL
  [14, 'the database file cannot be opened'], // SQLITE_CANTOPEN
])

/** The error to throw instead of `error`: a DatabaseUnavailableError, or `error` itself. */
export function translateSqliteError(error: unknown): unknown {
  if (!(error instanceof Error)) return error
  const { errcode } = error as { errcode?: unknown }
  if (typeof errcode !== 'number') return error
  const reason = UNAVAILABLE_CODES.get(errcode & 0xff)
  return reason === undefined ? error : new DatabaseUnavailableError(`SQLite: ${reason}`, { cause: error })
}
