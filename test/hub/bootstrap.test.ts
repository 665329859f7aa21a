// The hub's first-start credentials when a kill cut the first start short: whatever the kill left
// (a side file half written, a saved key the database never learned), the next start ends with a key
// that works and is saved, never with an account whose key nobody holds.

import { randomUUID } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { credentialsFile, ensureCredentials } from '../../src/hub/bootstrap.ts'
import { newApiKey } from '../../src/hub/store/ids.ts'
import { type HubStore, openStore } from '../../src/hub/store/store.ts'

const timings = { leaseMs: 300_000, expireAfterMs: 360_000 }

describe('first-start credentials after a kill', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })
  const open = async (): Promise<{ dataDir: string; store: HubStore }> => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-bootstrap-'))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    const store = await openStore({ dataDir, timings })
    cleanup.push(() => store.close())
    return { dataDir, store }
  }

  it('a key saved before the database learned it is registered, not replaced', async () => {
    const { dataDir, store } = await open()
    const saved = { accountId: randomUUID(), apiKey: newApiKey() }
    await writeFile(credentialsFile(dataDir), JSON.stringify(saved), { mode: 0o600 })

    expect(await ensureCredentials(store, dataDir)).toEqual({ ...saved, created: true })
    expect((await store.authenticate(saved.apiKey))?.accountIds).toEqual([saved.accountId])
    expect(await store.countAccounts()).toBe(1)
    expect(await ensureCredentials(store, dataDir)).toEqual({ ...saved, created: false })
  })

  it('a side file cut off mid-write is ignored and replaced by a whole one, mode 0600', async () => {
    const { dataDir, store } = await open()
    const partial = `${credentialsFile(dataDir)}.partial`
    await writeFile(partial, '{"accountId":"a5e1', { mode: 0o644 })

    const created = await ensureCredentials(store, dataDir)
    expect(created?.created).toBe(true)
    const onDisk = JSON.parse(await readFile(credentialsFile(dataDir), 'utf8')) as Record<string, string>
    expect(onDisk).toEqual({ accountId: created?.accountId, apiKey: created?.apiKey })
    expect((await stat(credentialsFile(dataDir))).mode & 0o777).toBe(0o600)
    expect((await readdir(dataDir)).filter((name) => name.startsWith('credentials'))).toEqual([
      'credentials.json',
    ])
    expect((await store.authenticate(created?.apiKey as string))?.accountIds).toEqual([created?.accountId])
  })

  it('the account and its key are written together or not at all', async () => {
    const { store } = await open()
    const key = newApiKey()
    await store.createAccountWithKey({ accountId: randomUUID(), accountName: 'a', key, keyName: 'k' })
    // The same key again breaks the key's unique hash after the account row went in: both go.
    await expect(
      store.createAccountWithKey({ accountId: randomUUID(), accountName: 'b', key, keyName: 'k' }),
    ).rejects.toThrow()
    expect(await store.countAccounts()).toBe(1)
  })

  it('saved credentials that no longer work beside existing accounts are not replaced by new ones', async () => {
    const { dataDir, store } = await open()
    const first = await ensureCredentials(store, dataDir)
    const stale = { accountId: first?.accountId, apiKey: newApiKey() }
    await writeFile(credentialsFile(dataDir), JSON.stringify(stale))

    expect(await ensureCredentials(store, dataDir)).toBeUndefined()
    expect(await store.countAccounts()).toBe(1)
  })
})
