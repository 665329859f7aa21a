// PostgreSQL through pg's Pool. BIGINT (epoch ms, counts) comes back as a JS number: every value the
// hub stores fits in 2^53. PostgreSQL going away (stopped, restarted) never ends the hub: every error
// of a lost connection is handled, queries fail with DatabaseUnavailableError (answered 503), and the
// pool opens new connections once the server is back.

import pg from 'pg'
import { DatabaseUnavailableError } from './errors.ts'
import { translatePostgresError } from './postgres-errors.ts'
import type { Db, Queryable, Row, SqlValue, TransactionOptions } from './types.ts'

const INT8_OID = 20

export interface PostgresOptions {
  max?: number
  /** How long a connection or one statement may take before the request is answered 503; default 30 s. */
  timeoutMs?: number
}

// The longest timer Node keeps (about 24.8 days); pg falls back to the pool's query_timeout for 0.
const NO_QUERY_TIMEOUT_MS = 2 ** 31 - 1

/**
 * Waits for the lock however long another replica holds it (its migration on a large database may
 * take minutes): neither the pool's query_timeout nor a server-side statement or lock timeout (a
 * role's default) may fail the start of a replica that is only queueing behind another.
 */
async function takeAdvisoryLock(client: pg.PoolClient, key: number): Promise<void> {
  try {
    await client.query('SET LOCAL statement_timeout = 0')
    await client.query('SET LOCAL lock_timeout = 0')
    await client.query({
      text: 'SELECT pg_advisory_xact_lock($1)',
      values: [key],
      query_timeout: NO_QUERY_TIMEOUT_MS,
    } as pg.QueryConfig)
  } catch (error) {
    throw translatePostgresError(error)
  }
}

export function openPostgres(connectionString: string, options: PostgresOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    // Without these a request waits forever on a server that accepts connections and never answers
    // (frozen, or gone behind a network cut without a reset).
    connectionTimeoutMillis: options.timeoutMs ?? 30_000,
    query_timeout: options.timeoutMs ?? 30_000,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client losing its connection (server restart) must not crash the hub: the pool drops it.
  pool.on('error', () => undefined)
  const query = async <R extends Row>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly SqlValue[],
  ): Promise<R[]> => {
    try {
      return (await client.query<R>(sql, params as SqlValue[])).rows
    } catch (error) {
      throw translatePostgresError(error)
    }
  }

  return {
    dialect: 'postgres',
    query: (sql, params = []) => query(pool, sql, params),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      let client: pg.PoolClient
      try {
        client = await pool.connect()
      } catch (error) {
        throw translatePostgresError(error)
      }
      // A checked-out client has no listener of the pool's: the connection ending between two
      // statements would emit an unhandled 'error' and end the process. The statement waiting (if
      // any) fails on its own; the client is dropped on release.
      let lost: unknown
      const onError = (error: unknown): void => {
        lost = error
      }
      client.on('error', onError)
      try {
        await query(client, 'BEGIN', [])
        if (options.advisoryLock !== undefined) await takeAdvisoryLock(client, options.advisoryLock)
        const value = await fn({ query: (sql, params = []) => query(client, sql, params) })
        await query(client, 'COMMIT', [])
        return value
      } catch (error) {
        // A lost or silent connection is dropped instead: ROLLBACK would wait behind the stuck
        // statement, and the server rolls back when the connection closes.
        if (error instanceof DatabaseUnavailableError) lost ??= error
        else await client.query('ROLLBACK').catch(() => undefined)
        throw error
      } finally {
        client.off('error', onError)
        // An error destroys the client instead of returning a broken connection to the pool.
        client.release(lost instanceof Error ? lost : undefined)
      }
    },
    close: () => pool.end(),
  }
}
