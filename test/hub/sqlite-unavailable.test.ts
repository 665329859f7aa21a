// The embedded SQLite cannot take a write: another process holds its lock, or the disk is full. The
// hub answers 503 with Retry-After and the reason (as for a PostgreSQL outage), stores nothing half,
// stays up, and takes the same request once the database can again.

import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestHub, type TestHub } from './helpers/test-hub.ts'

const cleanup: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function postIncident(
  hub: TestHub,
  name: string,
): Promise<{ status: number; retryAfter: string | null; message: string }> {
  const response = await fetch(`${hub.url}/v1/status-pages/incidents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, severity: 'MAJOR' }),
  })
  const body = (await response.json()) as { message?: string }
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    message: body.message ?? '',
  }
}

async function incidentNames(hub: TestHub): Promise<string[]> {
  const listed = await hub.api('/v1/status-pages/incidents?limit=100')
  expect(listed.status).toBe(200)
  return ((listed.body as { entries: { name: string }[] }).entries ?? []).map((i) => i.name).sort()
}

describe('the embedded SQLite unable to write', () => {
  it('another process holding the write lock: 503 naming it, then the write goes through', {
    timeout: 60_000,
  }, async () => {
    const hub = await startTestHub()
    cleanup.push(() => hub.close())
    expect((await postIncident(hub, 'before')).status).toBe(201)

    // A second writer on the same file (another hub, a backup tool) takes the lock and keeps it.
    const other = new DatabaseSync(path.join(hub.dataDir, 'hub.sqlite'))
    cleanup.push(() => other.isOpen && other.close())
    other.exec('PRAGMA busy_timeout = 0; BEGIN IMMEDIATE')
    const refused = await postIncident(hub, 'while locked')
    expect(refused.status).toBe(503)
    expect(refused.message).toBe(
      "the hub's database is unavailable (SQLite: the database is locked by another process); try again shortly",
    )
    expect(refused.retryAfter).toBe('2')

    other.exec('ROLLBACK')
    other.close()
    expect((await postIncident(hub, 'while locked')).status).toBe(201)
    expect(await incidentNames(hub)).toEqual(['before', 'while locked'])
  })

  it('readiness is 503 naming the lock while another process holds it; health stays 200', {
    timeout: 60_000,
  }, async () => {
    const hub = await startTestHub({ sqliteLockWaitMs: 200 })
    cleanup.push(() => hub.close())
    expect((await hub.api('/-/readiness', { key: null })).status).toBe(200)
    const other = new DatabaseSync(path.join(hub.dataDir, 'hub.sqlite'))
    cleanup.push(() => other.isOpen && other.close())
    other.exec('PRAGMA busy_timeout = 0; BEGIN IMMEDIATE')

    // Reads still work (WAL), so a SELECT would say ready while every write is refused.
    const readiness = await hub.api('/-/readiness', { key: null })
    expect(readiness.status).toBe(503)
    expect(readiness.body).toMatchObject({
      message:
        "the hub's database is unavailable (SQLite: the database is locked by another process); try again shortly",
    })
    expect((await hub.api('/-/health', { key: null })).status).toBe(200)

    other.exec('ROLLBACK')
    other.close()
    expect((await hub.api('/-/readiness', { key: null })).status).toBe(200)
  })

  it('a held lock does not stop the hub: health and reads answer while writes wait, then the writes go through', {
    timeout: 60_000,
  }, async () => {
    // Writes wait out the lock far longer than this test holds it: each is stored once it is released.
    const hub = await startTestHub({ sqliteLockWaitMs: 600_000 })
    cleanup.push(() => hub.close())
    expect((await postIncident(hub, 'before')).status).toBe(201)
    const other = new DatabaseSync(path.join(hub.dataDir, 'hub.sqlite'))
    cleanup.push(() => other.isOpen && other.close())
    other.exec('PRAGMA busy_timeout = 0; BEGIN IMMEDIATE')

    const answered: string[] = []
    const writes = ['first', 'second', 'third'].map(async (name) => {
      const answer = await postIncident(hub, name)
      answered.push(`write ${name}`)
      return answer
    })
    // A wait inside SQLite would hold the event loop for every queued write in turn: these would be
    // answered only after the writes gave up.
    const health = await fetch(`${hub.url}/-/health`)
    answered.push(`health ${health.status}`)
    const names = await incidentNames(hub)
    answered.push(`read ${names.join(',')}`)
    expect(answered).toEqual(['health 200', 'read before'])

    other.exec('ROLLBACK')
    other.close()
    for (const answer of await Promise.all(writes)) expect(answer.status).toBe(201)
    expect(await incidentNames(hub)).toEqual(['before', 'first', 'second', 'third'])
  })

  it('the disk full: 503 naming it, nothing half stored, and writes resume when space returns', {
    timeout: 60_000,
  }, async ({ skip }) => {
    if (process.getuid?.() !== 0) skip('mounting a small tmpfs needs root')
    const root = await mkdtemp(path.join(tmpdir(), 'outpost-hub-full-'))
    cleanup.push(() => rm(root, { recursive: true, force: true }))
    const dataDir = path.join(root, 'data')
    await mkdir(dataDir)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dataDir])
    cleanup.push(() => execFileSync('umount', ['-l', dataDir]))
    const hub = await startTestHub({ dataDir })
    cleanup.push(() => hub.close())
    expect((await postIncident(hub, 'before')).status).toBe(201)

    // dd stops at ENOSPC with the filesystem full.
    const filler = path.join(dataDir, 'filler')
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' })
    } catch {
      // ENOSPC: the point.
    }
    // The database keeps pages it freed and may fit a small write or two in them: write until the
    // disk says no, a bounded number of times.
    const refused: string[] = []
    const stored: string[] = []
    for (let i = 0; i < 200 && refused.length === 0; i++) {
      const name = `while full ${i} ${'x'.repeat(200)}`
      const answer = await postIncident(hub, name)
      if (answer.status === 201) stored.push(name)
      else {
        expect(answer.status).toBe(503)
        expect(answer.message).toBe(
          "the hub's database is unavailable (SQLite: the disk is full); try again shortly",
        )
        expect(answer.retryAfter).toBe('2')
        refused.push(name)
      }
    }
    expect(refused).toHaveLength(1)
    // Still serving; the list holds exactly what was acknowledged.
    expect(await incidentNames(hub)).toEqual(['before', ...stored].sort())

    await writeFile(filler, '')
    expect((await postIncident(hub, 'after')).status).toBe(201)
    expect(await incidentNames(hub)).toEqual(['after', 'before', ...stored].sort())
  })
})
