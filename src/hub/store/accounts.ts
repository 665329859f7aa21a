// Accounts and API keys. A key belongs to the account it was created in and may be granted others
// (an account created with a key grants it to that key); x-service-account picks among them.

import type { Db, Queryable } from '../db/types.ts'
import { hashApiKey, iso, newApiKey, newId } from './ids.ts'
import type { Account, ApiKeyInfo, AuthenticatedKey } from './model.ts'

interface KeyRow {
  [column: string]: string | number | null
  id: string
  account_id: string
  name: string
  prefix: string
  created_at: number
}

function keyInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    accountId: row.account_id,
    prefix: row.prefix,
    created_at: iso(row.created_at),
  }
}

export interface AccountWithKey {
  accountId: string
  accountName: string
  /** The key's plaintext; the database keeps its hash. */
  key: string
  keyName: string
}

// Any fixed number other than the migration's: replicas' first starts take turns.
const FIRST_ACCOUNT_LOCK = 748_312

async function insertAccountWithKey(tx: Queryable, input: AccountWithKey, at: number): Promise<void> {
  const keyId = newId()
  await tx.query('INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3)', [
    input.accountId,
    input.accountName,
    at,
  ])
  await tx.query(
    'INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [keyId, input.accountId, input.keyName, hashApiKey(input.key), input.key.slice(0, 7), at],
  )
  await tx.query('INSERT INTO key_accounts (key_id, account_id) VALUES ($1, $2)', [keyId, input.accountId])
}

export function createAccountsStore(db: Db, now: () => number) {
  return {
    async createAccount(name: string, grantKeyId?: string): Promise<Account> {
      const account = { id: newId(), name, created_at: now() }
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3)', [
          account.id,
          account.name,
          account.created_at,
        ])
        if (grantKeyId !== undefined) {
          await tx.query('INSERT INTO key_accounts (key_id, account_id) VALUES ($1, $2)', [
            grantKeyId,
            account.id,
          ])
        }
      })
      return { ...account, created_at: iso(account.created_at) }
    },

    async getAccount(id: string): Promise<Account | null> {
      const rows = await db.query<{ id: string; name: string; created_at: number }>(
        'SELECT id, name, created_at FROM accounts WHERE id = $1',
        [id],
      )
      const row = rows[0]
      return row ? { id: row.id, name: row.name, created_at: iso(row.created_at) } : null
    },

    async countAccounts(): Promise<number> {
      const rows = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM accounts')
      return Number(rows[0]?.n ?? 0)
    },

    /** The plaintext key is returned here only; the database keeps its hash. */
    async createApiKey(accountId: string, name: string): Promise<{ info: ApiKeyInfo; key: string }> {
      const key = newApiKey()
      const row: KeyRow = {
        id: newId(),
        account_id: accountId,
        name,
        prefix: key.slice(0, 7),
        created_at: now(),
      }
      await db.transaction(async (tx) => {
        await tx.query(
          'INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [row.id, row.account_id, row.name, hashApiKey(key), row.prefix, row.created_at],
        )
        await tx.query('INSERT INTO key_accounts (key_id, account_id) VALUES ($1, $2)', [row.id, accountId])
      })
      return { info: keyInfo(row), key }
    },

    /**
     * An account and a key for it in one transaction, the key's plaintext chosen by the caller: the
     * hub's first start saves it to its credentials file before the database learns it.
     */
    async createAccountWithKey(input: AccountWithKey): Promise<void> {
      await db.transaction((tx) => insertAccountWithKey(tx, input, now()))
    },

    /**
     * The first account and its key, unless the database has an account already (then false, and
     * `prepare` is not called). Count and insert are one transaction under a lock, so replicas
     * starting together on an empty database create one account between them, not one each.
     */
    async createFirstAccount(prepare: () => Promise<AccountWithKey>): Promise<boolean> {
      return db.transaction(
        async (tx) => {
          const rows = await tx.query<{ n: number }>('SELECT COUNT(*) AS n FROM accounts')
          if (Number(rows[0]?.n ?? 0) > 0) return false
          await insertAccountWithKey(tx, await prepare(), now())
          return true
        },
        { advisoryLock: FIRST_ACCOUNT_LOCK },
      )
    },

    async listApiKeys(accountId: string): Promise<ApiKeyInfo[]> {
      const rows = await db.query<KeyRow>(
        'SELECT id, account_id, name, prefix, created_at FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id',
        [accountId],
      )
      return rows.map(keyInfo)
    },

    async revokeApiKey(accountId: string, keyId: string): Promise<boolean> {
      const rows = await db.query(
        'UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id',
        [keyId, accountId, now()],
      )
      return rows.length > 0
    },

    async authenticate(key: string): Promise<AuthenticatedKey | null> {
      const rows = await db.query<{ id: string; account_id: string; member: string }>(
        `SELECT k.id, k.account_id, m.account_id AS member FROM api_keys k
         JOIN key_accounts m ON m.key_id = k.id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        [hashApiKey(key)],
      )
      const first = rows[0]
      if (first === undefined) return null
      return { keyId: first.id, accountId: first.account_id, accountIds: rows.map((r) => r.member) }
    },
  }
}

export type AccountsStore = ReturnType<typeof createAccountsStore>
