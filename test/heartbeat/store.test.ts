// The heartbeat store on disk: atomic replacement, survival across instances, an unreadable file.

import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HEARTBEAT_STATE_FILE, openHeartbeatStore } from '../../src/heartbeat/store.ts'

const T0 = Date.parse('2026-03-01T00:00:00.000Z')

describe('heartbeat store', () => {
  let dataDir: string
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outpost-hb-store-'))
  })
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  it('writes every ping before acknowledging it, and a new instance reads them back', async () => {
    const first = await openHeartbeatStore({ dataDir, now: () => T0 })
    await first.setChecks([{ pingToken: 'a', logicalId: 'job-a' }])
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        first.recordPing('a', { at: T0 + i, kind: 'success', method: 'GET' }),
      ),
    )
    const onDisk = JSON.parse(await readFile(join(dataDir, 'heartbeats', HEARTBEAT_STATE_FILE), 'utf8'))
    expect(onDisk.states.a.pingCount).toBe(30)

    const second = await openHeartbeatStore({ dataDir, now: () => T0 + 999_999 })
    expect(second.isKnown('a')).toBe(false)
    await second.setChecks([{ pingToken: 'a', logicalId: 'job-a' }])
    expect(second.get('a')).toMatchObject({ createdAt: T0, pingCount: 30, lastSuccessAt: T0 + 29 })
    expect((await readdir(join(dataDir, 'heartbeats'))).sort()).toEqual([HEARTBEAT_STATE_FILE])
  })

  it('a ping it could not write is not taken: the retry the sender is asked for counts once', async () => {
    const store = await openHeartbeatStore({ dataDir, now: () => T0 })
    await store.setChecks([{ pingToken: 'a', logicalId: 'job-a' }])
    await store.recordPing('a', { at: T0 + 1, kind: 'success', method: 'GET' })
    // The state directory replaced by a file: the write fails (ENOTDIR), as on a broken disk.
    const dir = join(dataDir, 'heartbeats')
    await rename(dir, `${dir}-away`)
    await writeFile(dir, '')
    await expect(store.recordPing('a', { at: T0 + 2, kind: 'start', method: 'GET' })).rejects.toThrow(
      /ENOTDIR/,
    )
    expect(store.get('a')).toMatchObject({ pingCount: 1, lastSuccessAt: T0 + 1 })
    await rm(dir)
    await rename(`${dir}-away`, dir)
    await store.recordPing('a', { at: T0 + 3, kind: 'start', method: 'GET' })
    expect(store.get('a')).toMatchObject({ pingCount: 2 })
    const onDisk = JSON.parse(await readFile(join(dir, HEARTBEAT_STATE_FILE), 'utf8'))
    expect(onDisk.states.a.pingCount).toBe(2)
  })

  it('answers undefined for a token it was not given, and forgets tokens of removed checks', async () => {
    const store = await openHeartbeatStore({ dataDir, now: () => T0 })
    await store.setChecks([{ pingToken: 'a', logicalId: 'job-a' }])
    expect(await store.recordPing('b', { at: T0, kind: 'success', method: 'GET' })).toBeUndefined()
    await store.setChecks([{ pingToken: 'b', logicalId: 'job-b' }])
    expect(store.isKnown('a')).toBe(false)
    expect(await store.recordPing('a', { at: T0, kind: 'success', method: 'GET' })).toBeUndefined()
    expect(store.get('a')?.checkId).toBe('job-a')
  })

  it('in read-only mode sees the state on disk but never writes the file', async () => {
    const owner = await openHeartbeatStore({ dataDir, now: () => T0 })
    await owner.setChecks([{ pingToken: 'a', logicalId: 'job-a' }])
    await owner.recordPing('a', { at: T0 + 1, kind: 'success', method: 'GET' })
    const file = join(dataDir, 'heartbeats', HEARTBEAT_STATE_FILE)
    const before = await readFile(file, 'utf8')

    const reader = await openHeartbeatStore({ dataDir, now: () => T0 + 5, readOnly: true })
    await reader.setChecks([
      { pingToken: 'a', logicalId: 'job-a' },
      { pingToken: 'b', logicalId: 'job-b' },
    ])
    await reader.markEvaluated('a', T0 + 5)
    await reader.flush()
    expect(reader.get('a')).toMatchObject({ lastSuccessAt: T0 + 1, lastEvaluatedAt: T0 + 5 })
    expect(await readFile(file, 'utf8')).toBe(before)
  })

  it('moves an unreadable file aside with a warning and starts empty instead of refusing to start', async () => {
    await openHeartbeatStore({ dataDir })
    await writeFile(join(dataDir, 'heartbeats', HEARTBEAT_STATE_FILE), '{"version":1,"states":')
    const warnings: string[] = []
    const store = await openHeartbeatStore({
      dataDir,
      log: { warn: (_obj: unknown, msg?: string) => warnings.push(msg ?? '') },
    })
    expect(store.get('a')).toBeUndefined()
    expect(warnings).toEqual(['heartbeat state unreadable; starting empty'])
    const files = await readdir(join(dataDir, 'heartbeats'))
    expect(files.some((f) => f.startsWith(`${HEARTBEAT_STATE_FILE}.unreadable-`))).toBe(true)
  })
})
