// First start: an account and an API key, so a new user can call the API at once. The key's
// plaintext is kept only in a 0600 file in the data dir (the database holds its hash), so a later
// start can print it again. The file is written whole before the database learns the key: a hub
// killed anywhere in its first start leaves either no file and no account (the next start begins
// again) or a file whose key the next start registers, never an account whose key nobody has.

import { chmod, mkdir, open, readFile, rename } from 'node:fs/promises'
import path from 'node:path'
import { newApiKey, newId } from './store/ids.ts'
import type { HubStore } from './store/store.ts'

export interface Credentials {
  accountId: string
  apiKey: string
  /** True when this start created them. */
  created: boolean
}

const FILE = 'credentials.json'

export function credentialsFile(dataDir: string): string {
  return path.join(dataDir, FILE)
}

async function readSaved(file: string): Promise<{ accountId: string; apiKey: string } | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { accountId?: unknown; apiKey?: unknown }
    if (typeof parsed.accountId === 'string' && typeof parsed.apiKey === 'string') {
      return { accountId: parsed.accountId, apiKey: parsed.apiKey }
    }
  } catch {
    // missing or unreadable: treated as absent
  }
  return undefined
}

/** Written to a side file, synced, then renamed over the real one: a kill never leaves half a key. */
async function save(dataDir: string, credentials: { accountId: string; apiKey: string }): Promise<void> {
  await mkdir(dataDir, { recursive: true })
  const file = credentialsFile(dataDir)
  const partial = `${file}.partial`
  const handle = await open(partial, 'w', 0o600)
  try {
    await handle.writeFile(`${JSON.stringify(credentials, null, 2)}\n`)
    await handle.sync()
  } finally {
    await handle.close()
  }
  // A side file left by an earlier kill keeps its old mode through open(); this one must be 0600.
  await chmod(partial, 0o600)
  await rename(partial, file)
  // The rename is an entry in the directory: until the directory is synced, a power cut may bring
  // back the old entry (no file) while the database keeps the account whose key only the file had.
  const directory = await open(dataDir, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** The saved credentials when they still work, else new ones when the database has no account yet. */
export async function ensureCredentials(store: HubStore, dataDir: string): Promise<Credentials | undefined> {
  const saved = await readSaved(credentialsFile(dataDir))
  if (saved !== undefined) {
    const key = await store.authenticate(saved.apiKey)
    if (key?.accountIds.includes(saved.accountId)) return { ...saved, created: false }
  }
  // A saved key the database never learned (the first start was killed between the two) is the one
  // the operator may already hold: it is registered rather than replaced. The file is written only
  // by the start that creates the account (replicas with data dirs of their own may start together).
  const credentials = saved ?? { accountId: newId(), apiKey: newApiKey() }
  const created = await store.createFirstAccount(async () => {
    if (saved === undefined) await save(dataDir, credentials)
    return {
      accountId: credentials.accountId,
      accountName: 'default',
      key: credentials.apiKey,
      keyName: 'created on first start',
    }
  })
  return created ? { ...credentials, created: true } : undefined
}
