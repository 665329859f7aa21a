// SQLite through node:sqlite (DatabaseSync). The connection is synchronous but the store's code is
// async, so every statement and transaction goes through one promise chain: without it, a request
// could run a statement inside another request's open transaction between two awaits.
//
// Nothing here may wait synchronously: a wait inside node:sqlite stops the whole event loop (no
// /-/health, no reads, no long-poll answers). So SQLite's own busy handler is off (busy_timeout 0),
// a lock another process holds is waited for between attempts on a timer with the connection free
// for other work, and the chain yields to I/O between tasks.

import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite'
import { setTimeout as sleep, setImmediate as yieldToIo } from 'node:timers/promises'
import { translateSqliteError } from './sqlite-errors.ts'
import type { Db, Queryable, Row, SqlValue } from './types.ts'

export interface SqliteOptions {
  /**
   * How long a write keeps retrying while another process holds the database's lock before it
   * fails with DatabaseUnavailableError (503); default 5 s.
   */
  lockWaitMs?: number
}

export const DEFAULT_LOCK_WAIT_MS = 5_000
const FIRST_RETRY_MS = 5
const LONGEST_RETRY_MS = 200
const SQLITE_BUSY = 5

function isBusy(error: unknown): boolean {
  const { errcode } = (error ?? {}) as { errcode?: unknown }
  return typeof errcode === 'number' && (errcode & 0xff) === SQLITE_BUSY
}

export function openSqlite(file: string, options: SqliteOptions = {}): Db {
  const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true })
  const database = new DatabaseSync(file)
  // WAL lets readers in other processes proceed beside the writer. In WAL mode a commit is in the
  // log before COMMIT returns, so a killed hub loses nothing it acknowledged; synchronous = FULL
  // (SQLite's default, set here so no build's default can lower it) also fsyncs the log at each
  // commit, so an acknowledged write survives a power cut too. busy_timeout = 0: see the top.
  database.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 0; PRAGMA foreign_keys = ON',
  )
  const statements = new Map<string, StatementSync>()
  let chain: Promise<unknown> = Promise.resolve()

  // A locked file or a full disk is an outage to the caller (503), not a bug (500).
  const guarded = <T>(fn: () => T): T => {
    try {
      return fn()
    } catch (error) {
      throw translateSqliteError(error)
    }
  }
  /** Throws SQLite's own error: the caller decides whether to retry or translate. */
  const run = <R extends Row>(sql: string, params: readonly SqlValue[]): R[] => {
    let statement = statements.get(sql)
    if (statement === undefined) {
      // $1 -> ?1: numbered parameters bind positionally in SQLite.
      statement = database.prepare(sql.replace(/\$(\d+)/g, '?$1'))
      statements.set(sql, statement)
    }
    return statement.all(...(params as SQLInputValue[])) as R[]
  }
  // Inside a transaction the write lock is held already: a failure there is not waited out.
  const direct: Queryable = {
    query: async <R extends Row>(sql: string, params: readonly SqlValue[] = []) =>
      guarded(() => run<R>(sql, params)),
  }
  const serialised = <T>(fn: () => Promise<T>): Promise<T> => {
    // The chain never rejects (see below); yielding first lets queued I/O in between two tasks.
    const next = chain.then(() => yieldToIo()).then(fn)
    chain = next.catch(() => undefined)
    return next
  }
  /**
   * Runs `attempt` (one turn on the connection) until it does not fail with SQLITE_BUSY or the wait
   * is over. An attempt that failed busy changed nothing (an autocommit statement, or BEGIN
   * IMMEDIATE before any statement of the transaction), so it is safe to run again.
   */
  const waitingOutLocks = async <T>(attempt: () => Promise<T>): Promise<T> => {
    const deadline = performance.now() + lockWaitMs
    let pause = FIRST_RETRY_MS
    for (;;) {
      try {
        return await attempt()
      } catch (error) {
        if (!isBusy(error) || !database.isOpen || performance.now() + pause > deadline) {
          throw translateSqliteError(error)
        }
        await sleep(pause)
        pause = Math.min(pause * 2, LONGEST_RETRY_MS)
      }
    }
  }

  return {
    dialect: 'sqlite',
    query: <R extends Row>(sql: string, params: readonly SqlValue[] = []) =>
      waitingOutLocks(() => serialised(async () => run<R>(sql, params))),
    // options.advisoryLock: BEGIN IMMEDIATE already admits one writer at a time, across processes too.
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      waitingOutLocks(() =>
        serialised(async () => {
          // SQLITE_BUSY here is retried by waitingOutLocks, the connection free in between.
          database.exec('BEGIN IMMEDIATE')
          try {
            const value = await fn(direct)
            guarded(() => database.exec('COMMIT'))
            return value
          } catch (error) {
            // A failed COMMIT may already have rolled back (SQLITE_FULL does): the first error is the
            // one to report, not "no transaction is active". Nor may a failing ROLLBACK (the
            // connection closed under it) take the first error's place.
            try {
              if (database.isTransaction) database.exec('ROLLBACK')
            } catch {
              // the first error is the one reported
            }
            // Translated here: a busy error from inside the transaction must not rerun fn.
            throw translateSqliteError(error)
          }
        }),
      ),
    close: () =>
      serialised(async () => {
        statements.clear()
        database.close()
      }),
  }
}
