// Which SQLite failures the hub answers 503: a lock another process holds is an outage the client
// waits out; SQLITE_LOCKED comes from a conflict inside the hub's own connection, a bug no retry
// resolves, so it stays an error of its own (500) instead of a "try again shortly".

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, expect, it } from 'vitest'
import { DatabaseUnavailableError } from '../../src/hub/db/errors.ts'
import { translateSqliteError } from '../../src/hub/db/sqlite-errors.ts'

const cleanup: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function database(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'outpost-sqlite-errors-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  return path.join(dir, 'hub.sqlite')
}

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected an error')
}

it('SQLITE_LOCKED from the connection itself is left as it is, not answered 503', async () => {
  const db = new DatabaseSync(await database())
  cleanup.push(() => db.close())
  db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2)')
  // A statement still stepping holds its table: dropping that table on the same connection is SQLITE_LOCKED.
  const reading = db.prepare('SELECT x FROM t').iterate()
  reading.next()
  const error = thrown(() => db.exec('DROP TABLE t'))
  expect((error as { errcode?: number }).errcode).toBe(6)
  expect(translateSqliteError(error)).toBe(error)
})

it('SQLITE_BUSY from another process holding the lock is answered 503 naming it', async () => {
  const file = await database()
  const holder = new DatabaseSync(file)
  const writer = new DatabaseSync(file)
  cleanup.push(
    () => writer.close(),
    () => holder.close(),
  )
  holder.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE')
  writer.exec('PRAGMA busy_timeout = 0')
  const error = thrown(() => writer.exec('BEGIN IMMEDIATE'))
  expect((error as { errcode?: number }).errcode).toBe(5)
  const translated = translateSqliteError(error)
  expect(translated).toBeInstanceOf(DatabaseUnavailableError)
  expect((translated as Error).message).toBe(
    "the hub's database is unavailable (SQLite: the database is locked by another process); try again shortly",
  )
  holder.exec('ROLLBACK')
})
