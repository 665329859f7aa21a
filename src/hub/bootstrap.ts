// First start: an account and an API key, so a new user can call the API at once. The key's
// plaintext is kept only in a 0600 file in the data dir (the database holds its hash), so a later
// start can print it again.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
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

/** The saved credentials when they still work, else new ones when the database has no account yet. */
export async function ensureCredentials(store: HubStore, dataDir: string): Promise<Credentials | undefined> {
  const file = credentialsFile(dataDir)
  const saved = await readSaved(file)
  if (saved !== undefined) {
    const key = await store.authenticate(saved.apiKey)
    if (key?.accountIds.includes(saved.accountId)) return { ...saved, created: false }
  }
  if ((await store.countAccounts()) > 0) return undefined
  const account = await store.createAccount('default')
  const { key } = await store.createApiKey(account.id, 'created on first start')
  await mkdir(dataDir, { recursive: true })
  await writeFile(file, `${JSON.stringify({ accountId: account.id, apiKey: key }, null, 2)}\n`, {
    mode: 0o600,
  })
  await chmod(file, 0o600)
  return { accountId: account.id, apiKey: key, created: true }
}
