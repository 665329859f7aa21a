// The embedded database's settings that decide what a kill or a power cut may take: write-ahead
// logging (a commit is in the log before the hub answers) and a log synced at every commit.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, it } from 'vitest'
import { openSqlite } from '../../src/hub/db/sqlite.ts'

it('the hub opens SQLite in WAL mode with synchronous = FULL and foreign keys on', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'outpost-sqlite-pragmas-'))
  const db = openSqlite(path.join(dir, 'hub.sqlite'))
  try {
    expect(await db.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }])
    // 2 is FULL: the log is fsynced at each commit, not only at checkpoints (NORMAL, 1).
    expect(await db.query('PRAGMA synchronous')).toEqual([{ synchronous: 2 }])
    expect(await db.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }])
  } finally {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  }
})
