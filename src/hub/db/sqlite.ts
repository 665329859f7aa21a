// SQLite through node:sqlite (DatabaseSync). The connection is synchronous but the store's code is
// async, so every statement and transaction goes through one promise chain: without it, a request
// could run a statement inside another request's open transaction between two awaits.

import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite'
import { translateSqliteError } from './sqlite-errors.ts'
import type { Db, Queryable, Row, SqlValue } from './types.ts'

export function openSqlite(file: string): Db {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true })
  const database = new DatabaseSync(file)
  // WAL lets readers in other processes proceed beside the writer; busy_timeout waits for the lock
  // instead of failing when another process (a second hub on the same file) holds it. In WAL mode a
  // commit is in the log before COMMIT returns, so a killed hub loses nothing it acknowledged;
  // synchronous = FULL (SQLite's default, set here so no build's default can lower it) also fsyncs
  // the log at each commit, so an acknowledged write survives a power cut too.
  database.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON',
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
  const run = <R extends Row>(sql: string, params: readonly SqlValue[]): R[] =>
    guarded(() => {
      let statement = statements.get(sql)
      if (statement === undefined) {
        // $1 -> ?1: numbered parameters bind positionally in SQLite.
        statement = database.prepare(sql.replace(/\$(\d+)/g, '?$1'))
        statements.set(sql, statement)
      }
      return statement.all(...(params as SQLInputValue[])) as R[]
    })
  const direct: Queryable = {
    query: async <R extends Row>(sql: string, params: readonly SqlValue[] = []) => run<R>(sql, params),
  }
  const serialised = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn)
    chain = next.catch(() => undefined)
    return next
  }

  return {
    dialect: 'sqlite',
    query: <R extends Row>(sql: string, params: readonly SqlValue[] = []) =>
      serialised(async () => run<R>(sql, params)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      serialised(async () => {
        guarded(() => database.exec('BEGIN IMMEDIATE'))
        try {
          const value = await fn(direct)
          guarded(() => database.exec('COMMIT'))
          return value
        } catch (error) {
          // A failed COMMIT may already have rolled back (SQLITE_FULL does): the first error is the one
          // to report, not "no transaction is active".
          // Nor may a failing ROLLBACK (the connection closed under it) take the first error's place.
          try {
            if (database.isTransaction) database.exec('ROLLBACK')
          } catch {
            // the first error is the one reported
          }
          throw error
        }
      }),
    close: () =>
      serialised(async () => {
        statements.clear()
        database.close()
      }),
  }
}
