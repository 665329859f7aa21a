// PostgreSQL through pg's Pool. BIGINT (epoch ms, counts) comes back as a JS number: every value the
// hub stores fits in 2^53. PostgreSQL going away (stopped, restarted) never ends the hub: every error
// of a lost connection is handled, queries fail with DatabaseUnavailableError (answered 503), and the
// pool opens new connections once the server is back.

import pg from 'pg'
import { DatabaseUnavailableError } from './errors.ts'
import { translatePostgresError } from './postgres-errors.ts'
import type { Db, Queryable, Row, SqlValue } from './types.ts'

const INT8_OID = 20

export interface PostgresOptions {
  max?: number
  /** How long a connection or one statement may take before the request is answered 503; default 30 s. */
  timeoutMs?: number
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
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
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
